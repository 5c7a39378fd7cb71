// The pgvector path of the PostgreSQL store (issue 22) beyond the shared contract: `auto` resolves to
// pgvector where the extension exists and to memory where it cannot be created (a database whose
// owner is no superuser), `pgvector` requested there is a start-up config error; the HNSW scan is
// iterative, so a filter that leaves few rows among the nearest still returns k; and another
// workspace's vectors, even the nearest ones, never come back, through the store or around it.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { InvalidConfigError, type GatewayConfig } from '../../gateway/config/index.js';
import { type ChunkInput, type EmbeddingSpace, type WorkspaceStore } from '../../gateway/knowledge/index.js';
import { choosePgVectorSearch, migratePostgres, PgKnowledgeStore } from '../../gateway/knowledge/pg-store.js';
import { openKnowledgeStore } from '../../gateway/knowledge/open-store.js';
import { silentLogger, type Logger } from '../../gateway/telemetry/logger.js';
import { clusteredVectors } from '../fixtures/clustered-vectors.js';
import { startPostgres, type PostgresServer } from '../infra/postgres-server.js';

const SPACE: EmbeddingSpace = { model: 'clustered', dimensions: 64 };
let server: PostgresServer;

beforeAll(async () => {
  server = startPostgres();
  expect(await migratePostgres(server.admin, server.app.user)).toBeUndefined();
}, 120_000);
afterAll(() => server?.stop());

async function asAdmin(sql: string, database = 'postgres'): Promise<void> {
  const admin = new pg.Client({ ...server.admin, database });
  await admin.connect();
  try {
    await admin.query(sql);
  } finally {
    await admin.end();
  }
}

/** `docs` documents (ids `<prefix>_0000`…) of `chunks` chunks in `source`, vectors from `next`. */
async function fill(
  ws: WorkspaceStore,
  source: string,
  docs: number,
  chunks: number,
  next: () => Float32Array,
  prefix = source,
): Promise<void> {
  for (let d = 0; d < docs; d += 1) {
    const docId = `${prefix}_${String(d).padStart(4, '0')}`;
    const body: ChunkInput[] = Array.from({ length: chunks }, (_, i) => ({
      chunkNo: i,
      text: `chunk ${i} of ${docId}`,
      charStart: i * 40,
      charEnd: i * 40 + 39,
    }));
    await ws.upsertDocument(
      {
        docId,
        sourceId: source,
        sourceType: 'files',
        externalId: docId,
        title: docId,
        url: undefined,
        updatedAt: undefined,
        contentHash: `h${d}`,
        bodyChars: chunks * 40,
      },
      body,
    );
    await ws.putVectors(
      SPACE,
      body.map((c) => ({ docId, chunkNo: c.chunkNo, contentHash: `h${d}`, vector: next() })),
    );
  }
}

/** The knowledge config of a gateway on `AGW_TEST_PG` (the tests' secret reader answers it). */
function knowledge(vectorSearch: 'auto' | 'pgvector'): GatewayConfig['knowledge'] {
  return {
    sqlitePath: ':memory:',
    postgres: { connectionString: { env: 'AGW_TEST_PG' }, migrate: false, vectorSearch },
    usageHints: false,
  };
}

describe('choosing the vector search path', () => {
  it('knowledge:pgvector-auto — auto uses pgvector where the extension is (or can be) created, memory where it cannot', async () => {
    expect(await choosePgVectorSearch(server.app, 'auto')).toEqual({ path: 'pgvector', reason: undefined });
    expect(await choosePgVectorSearch(server.app, 'memory')).toEqual({
      path: 'memory',
      reason: 'configured',
    });

    // A database owned by a role that is no superuser: pgvector is installed on the server, but this
    // owner may not create the (untrusted) extension, so the migration sets up the memory path only.
    await asAdmin("CREATE ROLE agw_owner LOGIN PASSWORD 'agw_owner' NOSUPERUSER NOBYPASSRLS");
    await asAdmin('CREATE DATABASE agw_noext OWNER agw_owner');
    const owner = { ...server.admin, user: 'agw_owner', password: 'agw_owner', database: 'agw_noext' };
    const app = { ...server.app, database: 'agw_noext' };
    expect(await migratePostgres(owner, server.app.user, 'auto')).toMatch(
      /CREATE EXTENSION vector failed: permission denied/,
    );
    const chosen = await choosePgVectorSearch(app, 'auto');
    expect(chosen.path).toBe('memory');
    expect(chosen.reason).toMatch(/permission denied to create extension/);

    // Through the gateway's start-up: auto logs the choice once; pgvector requested is a config error.
    const url = `postgresql://${app.user}:${app.password}@/${app.database}?host=${encodeURIComponent(app.host)}&port=${app.port}`;
    const secrets = { readEnv: () => url, readFile: () => '' };
    const infos: unknown[] = [];
    const logger: Logger = { ...silentLogger, info: (fields) => void infos.push(fields) };
    const { store } = await openKnowledgeStore(knowledge('auto'), secrets, logger);
    expect((store as PgKnowledgeStore).vectorSearch).toBe('memory');
    await store.close();
    expect(infos).toEqual([expect.objectContaining({ vectorSearch: 'memory', requested: 'auto' })]);
    expect(JSON.stringify(infos)).not.toContain('agw_app:agw_app');
    const refused = openKnowledgeStore(knowledge('pgvector'), secrets, silentLogger);
    await expect(refused).rejects.toThrow(InvalidConfigError);
    await expect(refused).rejects.toMatchObject({
      problems: [expect.objectContaining({ path: 'knowledge.postgres.vectorSearch' })],
    });
    // The main database, where the extension exists: pgvector requested is what runs.
    const main = `postgresql://${server.app.user}:${server.app.password}@/${server.app.database}?host=${encodeURIComponent(server.app.host)}&port=${server.app.port}`;
    const opened = await openKnowledgeStore(
      knowledge('pgvector'),
      { readEnv: () => main, readFile: () => '' },
      silentLogger,
    );
    expect((opened.store as PgKnowledgeStore).vectorSearch).toBe('pgvector');
    await opened.store.close();
  });
});

/** The store's search SQL through the HNSW index (no sort allowed) as the application role, with
 * iterative scans on or off: rows and plan. */
async function rawSearch(
  workspace: string,
  source: string,
  query: Float32Array,
  iterative: 'relaxed_order' | 'off',
): Promise<{ rows: number; plan: string }> {
  const client = new pg.Client(server.app);
  await client.connect();
  try {
    await client.query('BEGIN');
    await client.query(
      "SELECT set_config('agw.workspace', $1, true), set_config('hnsw.iterative_scan', $2, true), set_config('enable_sort', 'off', true)",
      [workspace, iterative],
    );
    const sql = `SELECT doc_id FROM chunk_embeddings e WHERE workspace_id = $1 AND model = $2 AND dimensions = 64
      AND source_id = ANY($3) ORDER BY embedding::vector(64) <=> $4::vector(64) LIMIT 10`;
    const params = [workspace, SPACE.model, [source], `[${query.join(',')}]`];
    const { rows } = await client.query(sql, params);
    const plan = await client.query(`EXPLAIN ${sql}`, params);
    await client.query('COMMIT');
    return {
      rows: rows.length,
      plan: plan.rows.map((r: Record<string, string>) => r['QUERY PLAN']).join('\n'),
    };
  } finally {
    await client.end();
  }
}

describe('pgvector search', () => {
  it('knowledge:pgvector-iterative-scan — a filter leaving few rows among the nearest still returns k, exactly ranked', async () => {
    const store = new PgKnowledgeStore(server.app, undefined, 'pgvector');
    const exact = new PgKnowledgeStore(server.app, { approximateAbove: Infinity, build: 'inline' }, 'memory');
    try {
      const ws = store.workspace('iter');
      // 3,000 chunks near one cluster centre, and 60 of another source around other centres.
      const near = clusteredVectors(64, 1, 1, 20).draws(1);
      const far = clusteredVectors(64, 2, 4, 5).draws(1);
      await fill(ws, 'common', 30, 100, near);
      await fill(ws, 'rare', 3, 20, far);
      const query = clusteredVectors(64, 1, 1, 20).draws(2)();
      const rare = { allowedSourceIds: ['common', 'rare'], sourceId: 'rare' };
      const hits = await ws.vectorSearch(rare, query, SPACE, 10);
      expect(hits).toHaveLength(10);
      expect(hits.every((h) => h.docId.startsWith('rare_'))).toBe(true);
      const truth = await exact.workspace('iter').vectorSearch(rare, query, SPACE, 10);
      expect(hits.map((h) => h.docId + '#' + h.chunkNo)).toEqual(truth.map((h) => h.docId + '#' + h.chunkNo));
      for (const [k, hit] of hits.entries()) expect(hit.similarity).toBeCloseTo(truth[k]?.similarity ?? 0, 5);

      // Through the HNSW index (sorting disabled, else the planner rightly ranks these 60 rows
      // exactly): with iterative scans off, the first ef_search (40) candidates hold no rare row;
      // with them on, the scan goes on until 10 pass the filter.
      const on = await rawSearch('iter', 'rare', query, 'relaxed_order');
      expect(on.plan).toMatch(/Index Scan using chunk_embeddings_hnsw_64/);
      expect(on.rows).toBe(10);
      expect((await rawSearch('iter', 'rare', query, 'off')).rows).toBeLessThan(10);
    } finally {
      await store.close();
      await exact.close();
    }
  });

  it("knowledge:pgvector-isolation — another workspace's vectors never come back, even the nearest", async () => {
    const store = new PgKnowledgeStore(server.app, undefined, 'pgvector');
    try {
      // A big workspace whose vectors are all close to the query, a small one whose are not.
      await fill(store.workspace('big'), 'docs', 30, 100, clusteredVectors(64, 1, 1, 20).draws(1), 'big');
      await fill(store.workspace('small'), 'docs', 2, 10, clusteredVectors(64, 3, 4, 5).draws(1), 'small');
      const query = clusteredVectors(64, 1, 1, 20).draws(2)();
      const all = { allowedSourceIds: ['docs'] };
      const hits = await store.workspace('small').vectorSearch(all, query, SPACE, 50);
      expect(hits).toHaveLength(20);
      expect(hits.every((h) => h.docId.startsWith('small_'))).toBe(true);
      const small = new Set((await store.workspace('small').documentHashes('docs')).keys());
      expect(hits.every((h) => small.has(h.docId))).toBe(true);
      // The nearest rows of the big workspace are in the same index, but row-level security keeps
      // them out even of a query that does not name the workspace (the policy is FORCEd).
      const on = await rawSearch('small', 'docs', query, 'relaxed_order');
      expect(on.rows).toBe(10);
      const client = new pg.Client(server.app);
      await client.connect();
      try {
        await client.query('BEGIN');
        await client.query("SELECT set_config('agw.workspace', 'small', true)");
        const { rows } = await client.query<{ workspace_id: string }>(
          'SELECT workspace_id FROM chunk_embeddings ORDER BY embedding::vector(64) <=> $1::vector(64) LIMIT 100',
          [`[${query.join(',')}]`],
        );
        expect(new Set(rows.map((r) => r.workspace_id))).toEqual(new Set(['small']));
        await client.query('COMMIT');
      } finally {
        await client.end();
      }
    } finally {
      await store.close();
    }
  });
});
