// The upstream side of a replica, built once: the pools of connections to authorization servers
// and to upstream MCP sources (through each workspace's reach policy, D19), this replica's upstream
// OAuth tokens, the circuit breakers, and the ToolCatalog that discovers sources through them.
import type { Logger as PinoLogger } from 'pino';
import type { ConfigSource, SecretReader } from '../config/index.js';
import type { UserConnections } from '../connections/index.js';
import {
  SourceStatusRegistry,
  ToolCatalog,
  type CachedToolList,
  type DiscoveryCache,
} from '../discovery/index.js';
import { AuthorizationServerPool, type TenantReach } from '../reach/index.js';
import { BreakerRegistry, UpstreamPool, UpstreamTokens, WorkloadWakers } from '../upstream/index.js';
import type { SessionStore } from '../upstream/session-store.js';
import { GATEWAY_VERSION } from '../version.js';
import { workspaceScope } from './tenant-reach.js';

export interface UpstreamParts {
  readonly authorizationServers: AuthorizationServerPool;
  readonly upstreamTokens: UpstreamTokens;
  readonly pool: UpstreamPool;
  readonly breakers: BreakerRegistry;
  readonly catalog: ToolCatalog;
}

export function buildUpstream(options: {
  readonly config: ConfigSource;
  readonly secrets: SecretReader;
  readonly logger: PinoLogger;
  readonly reach: TenantReach;
  readonly sessions: SessionStore;
  readonly cache: DiscoveryCache<CachedToolList>;
  /** Users' connections to `user` sources (issue 42). */
  readonly connections?: UserConnections;
}): UpstreamParts {
  const { config, secrets, logger, reach, sessions, cache, connections } = options;
  // Upstream OAuth tokens, per replica and in memory only (issue 29; docs/security.md).
  // Connections to authorization servers: pools of their own with idle and stall bounds (security.md).
  const authorizationServers = new AuthorizationServerPool();
  const upstreamTokens = new UpstreamTokens({ secrets, authorizationServers, connections });
  const pool = new UpstreamPool({
    secrets,
    tokens: upstreamTokens,
    clientInfo: { name: 'agent-gateway', version: GATEWAY_VERSION },
    logger,
    sessions,
    network: (workspace) => reach.guard(workspaceScope(config, workspace)),
    // Sources scaled to zero are woken through the operator (D25).
    wakers: new WorkloadWakers(),
  });
  const breakers = new BreakerRegistry();
  const catalog = new ToolCatalog({
    pool,
    breakers,
    cache,
    statuses: new SourceStatusRegistry(),
    logger,
    listTtlMs: 30_000,
  });
  return { authorizationServers, upstreamTokens, pool, breakers, catalog };
}
