// The gauges of a replica (docs/observability.md), read when metrics are collected: breaker states,
// failing sources, knowledge documents, the config in use, and whether Redis-shared state is usable.
// Registered once the parts they read exist.
import type { ConfigSource } from '../config/index.js';
import { configDigest } from '../config/index.js';
import type { ToolCatalog } from '../discovery/index.js';
import type { SyncEngine } from '../knowledge/index.js';
import type { SharedStateStatus } from '../rest/sources-route.js';
import { observeGauge } from '../telemetry/metrics.js';
import type { BreakerRegistry } from '../upstream/index.js';

const breakerLevel = { closed: 0, 'half-open': 1, open: 2 } as const;

export function observeGatewayGauges(parts: {
  readonly config: ConfigSource;
  readonly breakers: BreakerRegistry;
  readonly catalog: ToolCatalog;
  readonly sync: SyncEngine;
  readonly sharedState: () => SharedStateStatus;
}): void {
  const { config, breakers, catalog, sync, sharedState } = parts;
  observeGauge('agw.breaker.state', 'Circuit breaker per source: 0 closed, 1 half-open, 2 open.', () =>
    breakers.states().map(({ workspace, source, state }) => ({
      value: breakerLevel[state],
      attributes: { 'agw.workspace': workspace, 'agw.source': source },
    })),
  );
  // Per configured MCP source: 1 while this replica knows it as failing (left out, probed), else 0.
  observeGauge(
    'agw.source.failing',
    'MCP source failing and probed in the background (1) or not (0).',
    () => {
      const failing = new Set(
        catalog.failingSources().map(({ workspace, source }) => `${workspace}/${source}`),
      );
      return config.current().config.workspaces.flatMap((workspace) =>
        workspace.mcpSources.map((source) => ({
          value: failing.has(`${workspace.name}/${source.name}`) ? 1 : 0,
          attributes: { 'agw.workspace': workspace.name, 'agw.source': source.name },
        })),
      );
    },
  );
  // Per MCP source under pin or warn (issue 41): tools whose definition is not approved (held under
  // pin, served under warn). An alert on it is how an admin learns of a changed tool.
  observeGauge(
    'agw.tools.unapproved',
    'Tools whose definition is not the approved one, per source and pinning mode (held under pin).',
    () =>
      catalog.pins
        .entries()
        .filter(({ verdict }) => verdict.mode !== 'off')
        .map(({ workspace, source, verdict }) => ({
          value: verdict.unapproved.length,
          attributes: { 'agw.workspace': workspace, 'agw.source': source, 'agw.pinning.mode': verdict.mode },
        })),
  );
  observeGauge('agw.knowledge.documents', 'Documents in the knowledge index per data source.', () =>
    sync.documentCounts().map(({ workspace, source, documents }) => ({
      value: documents,
      attributes: { 'agw.workspace': workspace, 'agw.source': source },
    })),
  );
  observeGauge('agw.config.revision', 'Revision of the config in use (increments on every reload).', () => [
    { value: config.current().revision },
  ]);
  observeGauge(
    'agw.config.digest',
    'Digest of the config in use: equal on replicas serving the same config.',
    () => [{ value: configDigest(config.current()) }],
  );
  // Only with Redis configured: 1 while it is usable, 0 while this replica serves from local state.
  observeGauge('agw.shared_state.up', 'Shared state in Redis usable (1) or not (0, local state).', () => {
    const status = sharedState();
    return status === 'local' ? [] : [{ value: status === 'redis' ? 1 : 0 }];
  });
}
