import type { DataSourceConfig } from '../../config/index.js';
import type { Connector } from './connector.js';
import { filesConnector } from './files-connector.js';

export type { Connector, SourceItem } from './connector.js';
export { matchesGlobs, globToRegExp } from './glob-match.js';
export { extractText } from './text-extract.js';

export function connectorFor(source: DataSourceConfig): Connector {
  switch (source.type) {
    case 'files':
      return filesConnector(source);
  }
}
