// Picks the knowledge store for the configured shape: the shared PostgreSQL index (with its
// advisory-lock SourceLock) when `knowledge.postgres` is set, otherwise the embedded SQLite index.
import { resolveSecret, type GatewayConfig, type SecretReader } from '../config/index.js';
import type { KnowledgeStore } from './knowledge-store.js';
import { PgSourceLock } from './pg-source-lock.js';
import { migratePostgres, PgKnowledgeStore } from './pg-store.js';
import { MemorySourceLock, type SourceLock } from './source-lock.js';
import { SqliteKnowledgeStore } from './sqlite-store.js';

export async function openKnowledgeStore(
  knowledge: GatewayConfig['knowledge'],
  secrets: SecretReader,
): Promise<{ store: KnowledgeStore; lock: SourceLock }> {
  if (knowledge.postgres === undefined)
    return { store: new SqliteKnowledgeStore(knowledge.sqlitePath), lock: new MemorySourceLock() };
  const connectionString = resolveSecret(knowledge.postgres.connectionString, secrets);
  if (knowledge.postgres.migrate) await migratePostgres({ connectionString }, knowledge.postgres.appRole);
  const store = new PgKnowledgeStore({ connectionString });
  return { store, lock: new PgSourceLock(store.pool) };
}
