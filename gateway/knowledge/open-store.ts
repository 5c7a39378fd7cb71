// Picks the knowledge store for the configured shape: the shared PostgreSQL index (with its
// advisory-lock SourceLock) when `knowledge.postgres` is set, otherwise the embedded SQLite index.
// For PostgreSQL it also resolves where vectors are ranked (vectorSearch) and logs the choice once.
import { InvalidConfigError, resolveSecret, type GatewayConfig, type SecretReader } from '../config/index.js';
import type { Logger } from '../telemetry/logger.js';
import type { KnowledgeStore } from './knowledge-store.js';
import { MemorySourceLock, type SourceLock } from './source-lock.js';
import { SqliteKnowledgeStore } from './sqlite-store.js';

export async function openKnowledgeStore(
  knowledge: GatewayConfig['knowledge'],
  secrets: SecretReader,
  logger: Logger,
): Promise<{ store: KnowledgeStore; lock: SourceLock }> {
  if (knowledge.postgres === undefined)
    return { store: new SqliteKnowledgeStore(knowledge.sqlitePath), lock: new MemorySourceLock() };
  // The PostgreSQL store and its driver load only when it is configured (issue 26).
  const [{ PgSourceLock }, { choosePgVectorSearch, migratePostgres, PgKnowledgeStore }] = await Promise.all([
    import('./pg-source-lock.js'),
    import('./pg-store.js'),
  ]);
  const connectionString = resolveSecret(knowledge.postgres.connectionString, secrets);
  const requested = knowledge.postgres.vectorSearch;
  if (knowledge.postgres.migrate)
    await migratePostgres({ connectionString }, knowledge.postgres.appRole, requested);
  const chosen = await choosePgVectorSearch({ connectionString }, requested);
  if (requested === 'pgvector' && chosen.path !== 'pgvector')
    throw new InvalidConfigError('knowledge.postgres', [
      {
        path: 'knowledge.postgres.vectorSearch',
        message: `is pgvector, but pgvector cannot be used on this database (${chosen.reason ?? 'unknown'}); install the extension (CREATE EXTENSION vector, as a superuser) and run once with migrate, or choose auto or memory`,
      },
    ]);
  logger.info(
    {
      vectorSearch: chosen.path,
      requested,
      ...(chosen.reason === undefined ? {} : { reason: chosen.reason }),
    },
    `PostgreSQL knowledge store: vectors are ranked ${chosen.path === 'pgvector' ? 'by pgvector (HNSW) in PostgreSQL' : 'in gateway memory'}`,
  );
  const store = new PgKnowledgeStore({ connectionString }, undefined, chosen.path);
  if (!(await store.searchUsesIndex()))
    logger.warn(
      { fix: 'ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF' },
      'PostgreSQL cannot use the full-text index under row-level security (the match function is not LEAKPROOF), so every search scans every chunk; a superuser can run the statement in `fix` once (or run the gateway with knowledge.postgres.migrate as a superuser)',
    );
  return { store, lock: new PgSourceLock(store.pool) };
}
