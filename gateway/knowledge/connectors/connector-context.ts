// What connectors may use from the rest of the gateway: secret references, and the workspace's MCP
// sources (for `mcp-resources`). Connectors never see the config of another workspace.
import type { SecretReader } from '../../config/index.js';
import type { NetworkGuard, ReachPolicy, ReachScope } from '../../reach/index.js';
import type { UpstreamConnection, UpstreamTokens } from '../../upstream/index.js';

export interface ConnectorContext {
  readonly secrets: SecretReader;
  /** A live connection to one of this workspace's MCP sources, by name. */
  mcp(sourceName: string): Promise<UpstreamConnection>;
  /** The checked network path of this workspace (tenant reach policy); absent: unbounded. */
  readonly network?: NetworkGuard;
  /** Upstream OAuth tokens (issue 29) and the workspace they are for; absent: static credentials. */
  readonly tokens?: UpstreamTokens;
  readonly workspace?: string;
  /** The bounds of this workspace's files sources; absent: unbounded. */
  readonly files?: { readonly policy: ReachPolicy; readonly scope: ReachScope };
}
