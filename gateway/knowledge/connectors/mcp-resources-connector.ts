// The `mcp-resources` connector: the text resources of one of the workspace's MCP sources, each
// resource one document (external id = its URI). Binary resources are skipped.
import type { DataSourceConfig } from '../../config/index.js';
import type { Connector, SourceItem } from './connector.js';
import type { ConnectorContext } from './connector-context.js';
import { matchesGlobs } from './glob-match.js';

type McpResourcesSource = Extract<DataSourceConfig, { type: 'mcp-resources' }>;

export function mcpResourcesConnector(source: McpResourcesSource, context: ConnectorContext): Connector {
  return {
    async *items(signal): AsyncGenerator<SourceItem> {
      const connection = await context.mcp(source.mcpSource);
      const resources = await connection.listResources(signal);
      for (const resource of resources.slice(0, source.maxResources)) {
        const uri = resource['uri'];
        if (typeof uri !== 'string' || !matchesGlobs(uri, source.include)) continue;
        const read = await connection.readResource(uri, { signal, timeoutMs: 15_000 });
        const contents = Array.isArray(read['contents'])
          ? (read['contents'] as Record<string, unknown>[])
          : [];
        const body = contents
          .map((content) => content['text'])
          .filter((text): text is string => typeof text === 'string' && text !== '')
          .join('\n\n');
        if (body === '') continue;
        const title =
          typeof resource['title'] === 'string'
            ? resource['title']
            : typeof resource['name'] === 'string'
              ? resource['name']
              : uri;
        yield { externalId: uri, title, body, url: uri, updatedAt: undefined };
      }
    },
  };
}
