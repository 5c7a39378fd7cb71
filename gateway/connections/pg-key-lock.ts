// One holder per connection across every replica sharing the PostgreSQL store (issue 42: one refresh
// in flight): a session-level advisory lock on a client of its own pool, so lock holders never take
// the sessions queries need. The wait is bounded by `lock_timeout`; the lock is released (or its
// session ended) whatever the task does.
import { createHash } from 'node:crypto';
import type pg from 'pg';
import { ConnectionLockTimeout } from './keyed-mutex.js';
import type { Logger } from '../telemetry/logger.js';

/** PostgreSQL's SQLSTATE for a lock wait that reached lock_timeout. */
const LOCK_NOT_AVAILABLE = '55P03';

/** The advisory lock id of a key name: the first 64 bits of its SHA-256, as a signed bigint. */
export function advisoryLockId(name: string): string {
  return createHash('sha256').update(`agw-connection:${name}`).digest().readBigInt64BE(0).toString();
}

function sqlState(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/** Resolves with a pooled client, or rejects with ConnectionLockTimeout after `ms` (a client that
 * arrives later goes straight back). */
function connectWithin(pool: pg.Pool, ms: number, waitMs: number): Promise<pg.PoolClient> {
  return new Promise((resolve, reject) => {
    let late = false;
    const timer = setTimeout(() => {
      late = true;
      reject(new ConnectionLockTimeout(waitMs));
    }, ms);
    pool.connect().then(
      (client) => {
        clearTimeout(timer);
        if (late) client.release();
        else resolve(client);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error('connection store failure'));
      },
    );
  });
}

/** Waits at most `ms` for the lock; the session's lock_timeout is reset before this returns. */
async function lock(client: pg.PoolClient, id: string, ms: number, waitMs: number): Promise<void> {
  await client.query("SELECT set_config('lock_timeout', $1, false)", [`${Math.max(1, Math.ceil(ms))}ms`]);
  try {
    await client.query('SELECT pg_advisory_lock($1::bigint)', [id]);
  } catch (error) {
    if (sqlState(error) === LOCK_NOT_AVAILABLE) throw new ConnectionLockTimeout(waitMs);
    throw error;
  } finally {
    await client.query('RESET lock_timeout');
  }
}

export class PgKeyLock {
  constructor(
    private readonly pool: pg.Pool,
    private readonly logger: Logger,
  ) {}

  /** Runs `task` holding the advisory lock of `id`, having waited no longer than until `deadline`. */
  async run<T>(id: string, deadline: number, waitMs: number, task: () => Promise<T>): Promise<T> {
    const client = await connectWithin(this.pool, Math.max(0, deadline - Date.now()), waitMs);
    // A held session that fails between queries emits 'error' on the client; unheard, that would
    // end the process. The lock goes with the session, so another replica may then refresh too.
    const lost = (error: Error) =>
      this.logger.warn({ code: sqlState(error) }, 'PostgreSQL connection store: a lock session failed');
    client.on('error', lost);
    let broken: Error | undefined;
    try {
      try {
        await lock(client, id, deadline - Date.now(), waitMs);
      } catch (error) {
        // Only a wait that timed out leaves the session clean; anything else ends it.
        if (!(error instanceof ConnectionLockTimeout))
          broken = error instanceof Error ? error : new Error('advisory lock failed');
        throw error;
      }
      try {
        return await task();
      } finally {
        broken = await this.unlock(client, id);
      }
    } finally {
      client.removeListener('error', lost);
      client.release(broken);
    }
  }

  /** Undefined when unlocked; else the reason, and the session is then ended (which frees it). */
  private async unlock(client: pg.PoolClient, id: string): Promise<Error | undefined> {
    try {
      const { rows } = await client.query<{ unlocked: boolean }>(
        'SELECT pg_advisory_unlock($1::bigint) AS unlocked',
        [id],
      );
      return rows[0]?.unlocked === true ? undefined : new Error('advisory lock was not held');
    } catch (error) {
      return error instanceof Error ? error : new Error('advisory unlock failed');
    }
  }
}
