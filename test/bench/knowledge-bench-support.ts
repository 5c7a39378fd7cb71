// Shared by the SQLite and PostgreSQL knowledge benchmarks: the principal searches run as, and the
// timed search loop (100 warm-up queries, then up to 1,000 timed ones through the gateway's search).
import { principalFor, type Principal } from '../../gateway/auth/principal.js';
import { validateConfig } from '../../gateway/config/index.js';
import { KnowledgeService, type KnowledgeStore } from '../../gateway/knowledge/index.js';

export function benchPrincipal(): Principal {
  const parsed = validateConfig({
    version: 1,
    workspaces: [{ name: 'bench', dataSources: [{ name: 'src', type: 'files', path: '.' }] }],
  });
  if (!parsed.ok) throw new Error('bench config');
  return principalFor(
    {
      id: 'AAAAAAAAAA',
      hash: `sha256:${'0'.repeat(64)}`,
      access: 'read',
      sources: ['*'],
      tools: ['*'],
      revoked: false,
    },
    parsed.config.workspaces[0]!,
  );
}

/** Sorted latencies in ms of top-10 searches with 300-character snippets. */
export async function timeSearches(store: KnowledgeStore, queries: readonly string[]): Promise<number[]> {
  const service = new KnowledgeService(store);
  const principal = benchPrincipal();
  const request = (query: string) => ({
    query,
    limit: 10,
    connectorId: undefined,
    sourceType: undefined,
    snippetChars: 300,
  });
  for (const query of queries.slice(0, 100)) await service.search(principal, request(query));
  const timings: number[] = [];
  for (const query of queries.slice(100, 1100)) {
    const started = performance.now();
    await service.search(principal, request(query));
    timings.push(performance.now() - started);
  }
  return timings.sort((a, b) => a - b);
}
