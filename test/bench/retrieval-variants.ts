// The retrieval variants the hybrid and tool-search quality tables share (semantic, RRF k=60 and the
// convex sweep beside each benchmark's own lexical and default rows), and the validated config of
// the one `bench` workspace they run under with embeddings on the given model.
import { validateConfig, type GatewayConfig } from '../../gateway/config/index.js';
import type { Fusion, RankFusion, RetrievalMode } from '../../gateway/knowledge/index.js';

export interface Variant<F extends Fusion = Fusion> {
  readonly label: string;
  readonly mode: RetrievalMode;
  readonly fusion?: F;
}

export const SEMANTIC: Variant<RankFusion> = { label: 'semantic (cosine)', mode: 'semantic' };
export const RRF_60: Variant<RankFusion> = {
  label: 'hybrid RRF k=60',
  mode: 'hybrid',
  fusion: { kind: 'rrf', k: 60 },
};
/** Convex fusion at lexical weights 0.3 … 0.7. */
export const CONVEX_SWEEP: readonly Variant<RankFusion>[] = [0.3, 0.4, 0.5, 0.6, 0.7].map((w) => ({
  label: `hybrid convex lexical ${w.toFixed(1)}`,
  mode: 'hybrid',
  fusion: { kind: 'convex', lexicalWeight: w },
}));

/** The `bench` workspace with embeddings on `model` (a dead base URL: vectors come from the cache). */
export function embeddingsBenchConfig(model: string, workspace: Record<string, unknown> = {}): GatewayConfig {
  const parsed = validateConfig({
    version: 1,
    workspaces: [
      {
        name: 'bench',
        ...workspace,
        embeddings: { baseUrl: 'http://127.0.0.1:9/v1', model, queryTimeoutMs: 60_000 },
      },
    ],
  });
  if (!parsed.ok) throw new Error('bench config');
  return parsed.config;
}
