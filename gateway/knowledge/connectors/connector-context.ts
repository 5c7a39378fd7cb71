// What connectors may use from the rest of the gateway: secret references, and the workspace's MCP
// sources (for `mcp-resources`). Connectors never see the config of another workspace.
import type { SecretReader } from '../../config/index.js';
import type { UpstreamConnection } from '../../upstream/index.js';

export interface ConnectorContext {
  readonly secrets: SecretReader;
  /** A live connection to one of this workspace's MCP sources, by name. */
  mcp(sourceName: string): Promise<UpstreamConnection>;
}
