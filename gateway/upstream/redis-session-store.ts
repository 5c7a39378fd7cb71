// Upstream sessions shared through Redis (issue 10 item 2). Values are stored as they are (JSON with
// the session id, protocol version and server capabilities), not encrypted: a session id is only
// usable together with the source's own credential, which never goes to Redis, and Redis is
// expected behind network policy and ACLs like the rest of the gateway's state. Key names are
// hashes, so no id appears in a key. Any Redis failure falls back to a per-replica session.
import type { RedisClient } from '../shared-state/redis-connection.js';
import { RedisLock } from '../shared-state/redis-lock.js';
import { within } from '../shared-state/within.js';
import type { SessionStore, SharedSession } from './session-store.js';

const FORGET = `if redis.call('GET', KEYS[1]) then
  local stored = cjson.decode(redis.call('GET', KEYS[1]))
  if stored['sessionId'] == ARGV[1] then return redis.call('DEL', KEYS[1]) end
end
return 0`;
const SESSION_TTL_MS = 24 * 60 * 60 * 1000;

export class RedisSessionStore implements SessionStore {
  private readonly lock: RedisLock;

  constructor(
    private readonly redis: RedisClient,
    private readonly keyPrefix: string,
    private readonly timeoutMs: number,
  ) {
    this.lock = new RedisLock(redis, timeoutMs);
  }

  private key(key: string): string {
    return `${this.keyPrefix}session:${key}`;
  }

  async get(key: string): Promise<SharedSession | undefined> {
    try {
      const raw = await this.timed(this.redis.get(this.key(key)));
      return raw === null ? undefined : (JSON.parse(raw) as SharedSession);
    } catch {
      return undefined;
    }
  }

  async put(key: string, session: SharedSession): Promise<void> {
    await this.timed(this.redis.set(this.key(key), JSON.stringify(session), 'PX', SESSION_TTL_MS)).catch(
      () => undefined,
    );
  }

  async forget(key: string, sessionId: string): Promise<void> {
    await this.timed(this.redis.eval(FORGET, 1, this.key(key), sessionId)).catch(() => undefined);
  }

  async exclusive(key: string, waitMs: number, work: () => Promise<void>): Promise<void> {
    const lock = `${this.keyPrefix}session-lock:${key}`;
    const acquired = await this.lock.acquire(lock, waitMs + 1000);
    if (!acquired) await this.lock.waitWhileHeld(lock, waitMs);
    try {
      await work();
    } finally {
      if (acquired) await this.lock.release(lock);
    }
  }

  private timed<R>(promise: Promise<R>): Promise<R> {
    return within(promise, this.timeoutMs);
  }
}
