// The `mcp-resources` connector: the text resources of one of the workspace's MCP sources, each
// resource one document (external id = its URI). Binary resources are skipped.
import type { DataSourceConfig } from '../../config/index.js';
import type { Connector, SourceItem } from './connector.js';
import type { ConnectorContext } from './connector-context.js';
import { ConnectorError } from './connector-error.js';
import { matchesGlobs } from './glob-match.js';

type McpResourcesSource = Extract<DataSourceConfig, { type: 'mcp-resources' }>;

export function mcpResourcesConnector(source: McpResourcesSource, context: ConnectorContext): Connector {
  return {
    async *items(signal): AsyncGenerator<SourceItem> {
      const connection = await context.mcp(source.mcpSource);
      const { items: resources } = await connection.listResources(signal);
      const matching = resources.filter(
        (resource) => typeof resource['uri'] === 'string' && matchesGlobs(resource['uri'], source.include),
      );
      for (const resource of matching.slice(0, source.maxResources)) {
        const uri = resource['uri'] as string;
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
      // A listing cut short must fail rather than succeed, or the resources past the cap would be
      // removed from the index as deleted.
      if (matching.length > source.maxResources)
        throw new ConnectorError(
          `the source lists more than maxResources (${source.maxResources}) matching resources; raise maxResources`,
        );
    },
  };
}
