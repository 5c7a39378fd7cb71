// Shared by the SQLite and PostgreSQL knowledge benchmarks: the principal searches run as, and the
// timed search loop (100 warm-up queries, then up to 1,000 timed ones through the gateway's search).
import { principalFor, type Principal } from '../../gateway/auth/principal.js';
import { validateConfig } from '../../gateway/config/index.js';
import { documentId, KnowledgeService, type KnowledgeStore } from '../../gateway/knowledge/index.js';

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

/** 1-based rank of the wanted document among the distinct documents of a ranked list. */
export function docRank(docIds: readonly string[], wanted: string): number | undefined {
  const unique = [...new Set(docIds)];
  const index = unique.indexOf(wanted);
  return index < 0 ? undefined : index + 1;
}

/** The rank of each known-item page under the gateway's own search path (60 chunks deep). */
export async function gatewayRanks(
  store: KnowledgeStore,
  pages: readonly { id: string; query: string }[],
): Promise<(number | undefined)[]> {
  const service = new KnowledgeService(store);
  const principal = benchPrincipal();
  const ranks: (number | undefined)[] = [];
  for (const page of pages) {
    const { records } = await service.search(principal, {
      query: page.query,
      limit: 60,
      connectorId: undefined,
      sourceType: undefined,
      snippetChars: 40,
    });
    ranks.push(
      docRank(
        records.map((r) => r.doc_id),
        documentId('bench', 'src', page.id),
      ),
    );
  }
  return ranks;
}
