import type { DataSourceConfig } from '../../config/index.js';
import type { Connector } from './connector.js';
import type { ConnectorContext } from './connector-context.js';
import { filesConnector } from './files-connector.js';
import { httpConnector } from './http-connector.js';
import { mcpResourcesConnector } from './mcp-resources-connector.js';
import { postgresConnector } from './postgres-connector.js';

export type { Connector, ListingHooks, SourceItem } from './connector.js';
export type { ConnectorContext } from './connector-context.js';
export { matchesGlobs, globToRegExp } from './glob-match.js';
export { extractText } from './text-extract.js';
export { HttpSourceError } from './http-connector.js';
export { ConnectorError } from './connector-error.js';

export function connectorFor(source: DataSourceConfig, context: ConnectorContext): Connector {
  switch (source.type) {
    case 'files':
      return filesConnector(source, context.files);
    case 'http':
      return httpConnector(source, context);
    case 'mcp-resources':
      return mcpResourcesConnector(source, context);
    case 'postgres':
      return postgresConnector(source, context);
  }
}
