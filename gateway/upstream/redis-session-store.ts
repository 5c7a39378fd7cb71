// Upstream sessions shared through Redis (issue 10 item 2). Key names are hashes (session-store.ts),
// and the value — the upstream's `Mcp-Session-Id`, protocol version and capabilities — is encrypted
// (issue 28.8): whoever reads Redis cannot ride an upstream session. The value is prefixed with a
// digest of the session id (`<digest>.<ciphertext>`) so a replica can forget exactly the session
// that failed, atomically, without Redis decrypting anything. While more than one encryption key is
// configured (a rotation), every replica re-encrypts the sessions still under an older key with the
// first one, at start and every few minutes, so dropping the old key later drops no session. Any
// Redis failure falls back to a per-replica session.
import type { Logger } from '../telemetry/logger.js';
import { keyDigest } from '../shared-state/key-digest.js';
import { masters, type RedisClient } from '../shared-state/redis-connection.js';
import { RedisLock } from '../shared-state/redis-lock.js';
import type { ValueCipher } from '../shared-state/value-cipher.js';
import { within } from '../shared-state/within.js';
import type { SessionStore, SharedSession } from './session-store.js';

const FORGET = `local stored = redis.call('GET', KEYS[1])
if stored and string.sub(stored, 1, #ARGV[1] + 1) == ARGV[1] .. '.' then return redis.call('DEL', KEYS[1]) end
return 0`;
const REPLACE = `if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('SET', KEYS[1], ARGV[2], 'KEEPTTL') end
return 0`;
const SESSION_TTL_MS = 24 * 60 * 60 * 1000;
/** How often a replica re-encrypts sessions under older keys while a rotation is under way. */
export const REKEY_PERIOD_MS = 5 * 60 * 1000;

export interface RedisSessionStoreOptions {
  readonly redis: RedisClient;
  readonly keyPrefix: string;
  readonly timeoutMs: number;
  readonly cipher: ValueCipher;
  readonly logger: Logger;
}

export class RedisSessionStore implements SessionStore {
  private readonly lock: RedisLock;
  private rekeyTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: RedisSessionStoreOptions) {
    this.lock = new RedisLock(options.redis, options.timeoutMs);
  }

  private key(key: string): string {
    return `${this.options.keyPrefix}session:${key}`;
  }

  async get(key: string): Promise<SharedSession | undefined> {
    const name = this.key(key);
    try {
      const stored = await this.timed(this.options.redis.get(name));
      const opened = stored === null ? undefined : this.open(name, stored);
      // A value no configured key opens (a dropped key, an older version's plaintext) is absent.
      return opened === undefined ? undefined : (JSON.parse(opened.plain) as SharedSession);
    } catch {
      return undefined;
    }
  }

  async put(key: string, session: SharedSession): Promise<void> {
    const name = this.key(key);
    await this.timed(this.options.redis.set(name, this.seal(name, session), 'PX', SESSION_TTL_MS)).catch(
      () => undefined,
    );
  }

  async forget(key: string, sessionId: string): Promise<void> {
    await this.timed(this.options.redis.eval(FORGET, 1, this.key(key), sessionDigest(sessionId))).catch(
      () => undefined,
    );
  }

  async exclusive(key: string, waitMs: number, work: () => Promise<void>): Promise<void> {
    const lock = `${this.options.keyPrefix}session-lock:${key}`;
    const acquired = await this.lock.acquire(lock, waitMs + 1000);
    if (!acquired) await this.lock.waitWhileHeld(lock, waitMs);
    try {
      await work();
    } finally {
      if (acquired) await this.lock.release(lock);
    }
  }

  /** While a rotation is under way: re-encrypt now (once Redis is ready) and every REKEY_PERIOD_MS. */
  startRekeying(): void {
    if (!this.options.cipher.rotating || this.rekeyTimer !== undefined) return;
    const run = () => void this.rekey();
    if (this.options.redis.status === 'ready') run();
    else this.options.redis.once('ready', run);
    this.rekeyTimer = setInterval(run, REKEY_PERIOD_MS);
    this.rekeyTimer.unref();
  }

  stop(): void {
    if (this.rekeyTimer !== undefined) clearInterval(this.rekeyTimer);
  }

  /** Re-encrypts with the first key every session still under another configured key; a value
   * changed meanwhile by another replica is left alone. Returns how many were rewritten. */
  async rekey(): Promise<number> {
    const { redis, keyPrefix, logger } = this.options;
    const slow = <R>(promise: Promise<R>) => within(promise, Math.max(this.options.timeoutMs * 10, 1000));
    let rewritten = 0;
    try {
      for (const node of masters(redis)) {
        let cursor = '0';
        do {
          const [next, names] = await slow(node.scan(cursor, 'MATCH', `${keyPrefix}session:*`, 'COUNT', 200));
          for (const name of names) {
            const stored = await slow(redis.get(name));
            const opened = stored === null ? undefined : this.open(name, stored);
            if (stored === null || opened === undefined || !opened.stale) continue;
            const session = JSON.parse(opened.plain) as SharedSession;
            rewritten += Number(await slow(redis.eval(REPLACE, 1, name, stored, this.seal(name, session))));
          }
          cursor = next;
        } while (cursor !== '0');
      }
      if (rewritten > 0) logger.info({ rewritten }, 'upstream sessions re-encrypted with the first key');
    } catch (error) {
      logger.warn({ err: (error as Error).name }, 'upstream sessions not re-encrypted (redis unavailable)');
    }
    return rewritten;
  }

  private seal(name: string, session: SharedSession): string {
    return `${sessionDigest(session.sessionId)}.${this.options.cipher.encrypt(JSON.stringify(session), name)}`;
  }

  private open(name: string, stored: string) {
    const dot = stored.indexOf('.');
    return dot < 0 ? undefined : this.options.cipher.decrypt(stored.slice(dot + 1), name);
  }

  private timed<R>(promise: Promise<R>): Promise<R> {
    return within(promise, this.options.timeoutMs);
  }
}

/** Names a session id in Redis without revealing it (what `forget` compares). */
function sessionDigest(sessionId: string): string {
  return keyDigest(`upstream-session-id\0${sessionId}`);
}
