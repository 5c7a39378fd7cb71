// GET /agent/activity (issue 25): the caller's workspace over the last hour — requests by route and
// error class in one-minute buckets with p50/p95 latency, as this replica counted them (scope
// "replica", docs/decisions.md) — and the sync state and progress of the data sources the key may see. Counts
// only, never content: a read key sees the same workspace-level activity as a write key.
import type { FastifyInstance } from 'fastify';
import { canSeeSource } from '../auth/index.js';
import type { SyncEngine } from '../knowledge/index.js';
import { requirePrincipal } from '../edge/request-context.js';
import { BUCKET_MS, BUCKETS, type ActivityRecorder } from '../telemetry/activity-recorder.js';
import { sendAgentBody } from './agent-reply.js';
import { progressColumns } from './source-records.js';

export function registerActivityRoute(
  app: FastifyInstance,
  recorder: ActivityRecorder,
  sync: SyncEngine,
): void {
  app.get('/agent/activity', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const workspace = principal.workspace;
    const sources = workspace.dataSources
      .filter((source) => canSeeSource(principal, source.name))
      .map((source) => {
        const state = sync.state(workspace.name, source.name);
        const progress = progressColumns(state);
        return {
          source: source.name,
          state: state.status,
          documents: state.lastSyncAt === undefined ? null : state.documents,
          chunks: state.chunks ?? null,
          started_at: state.lastSyncAt ?? null,
          finished_at: state.lastFinishedAt ?? null,
          progress:
            state.progress === undefined
              ? null
              : { done: state.progress.done, total: state.progress.total ?? null },
          error_class: state.status === 'failed' ? 'upstream_reachability' : null,
          // The same figures as /agent/sources (issue 39): documents and chunks done of what, pace.
          phase: progress.progress_phase,
          documents_done: progress.documents_done,
          documents_total: progress.documents_total,
          chunks_done: progress.chunks_done,
          chunks_total: progress.chunks_total,
          rate_per_s: progress.rate_per_s,
          eta_s: progress.eta_s,
        };
      });
    return sendAgentBody(request, reply, {
      window_seconds: (BUCKETS * BUCKET_MS) / 1000,
      bucket_seconds: BUCKET_MS / 1000,
      scope: 'replica',
      now: new Date().toISOString(),
      series: recorder.series(workspace.name),
      sync: sources,
    });
  });
}
