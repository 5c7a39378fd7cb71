// Legacy upstreams forget sessions (restart, expiry) and answer 404 to the old `Mcp-Session-Id`; the
// SDK client does not re-initialize by itself (docs/mcp-2026.md duty 15). This runs a hop once more
// on a fresh connection when that happens, so the client never notices.
import { mcpClientSdk } from './mcp-client-sdk.js';
import type { McpSourceConfig } from '../config/index.js';
import type { UpstreamConnection } from './upstream-connection.js';
import type { UpstreamPool } from './upstream-pool.js';

export function isSessionLost(error: unknown, connection: UpstreamConnection): boolean {
  return connection.era === 'legacy' && error instanceof mcpClientSdk().SdkHttpError && error.status === 404;
}

export async function withSessionRecovery<T>(
  pool: UpstreamPool,
  workspace: string,
  source: McpSourceConfig,
  hop: (connection: UpstreamConnection) => Promise<T>,
): Promise<T> {
  const connection = await pool.get(workspace, source);
  try {
    return await hop(connection);
  } catch (error) {
    if (!isSessionLost(error, connection)) throw error;
    await pool.sessionLost(workspace, source, connection);
    return hop(await pool.get(workspace, source));
  }
}
