// The TaskLedger shared by every replica (issue 43, docs/redis.md): an owner's places are one sorted
// set (slot digest → end, ms since epoch), pruned, counted and added to by one script, so replicas
// racing for the last place take it once between them; the set expires with its latest place. A
// held result is its own key, encrypted (ValueCipher, bound to that key's name) and expiring with
// its place. Names carry digests only: no workspace, key id or slot in clear. When Redis fails or
// is slower than `timeoutMs`, this replica decides with its own MemoryTaskLedger for that operation
// and says so once in the log; giving back, moving and reading also look at that local ledger, so
// what was taken during an outage is found again. A Redis outage never fails a request.
import { keyDigest } from '../shared-state/key-digest.js';
import type { RedisClient } from '../shared-state/redis-connection.js';
import type { ValueCipher } from '../shared-state/value-cipher.js';
import { within } from '../shared-state/within.js';
import type { Logger } from '../telemetry/logger.js';
import { workspaceTag } from './request-rules.js';
import { MemoryTaskLedger, type TaskLedger, type TaskOwner } from './task-ledger.js';

// Every script: KEYS[1] the owner's places; ARGV[1] now, ARGV[2] the slot's digest. A place whose
// end is not after now no longer counts (removed first); the set lives as long as its latest place.
const PRUNE = `
local now = tonumber(ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', ARGV[1])
local function keep()
  local last = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
  if last[2] then redis.call('PEXPIRE', KEYS[1], math.max(1, math.ceil(tonumber(last[2]) - now))) end
end
`;
// ARGV[3] until, ARGV[4] max. Returns 1 when the place was taken.
const RESERVE = `${PRUNE}
if redis.call('ZCARD', KEYS[1]) >= tonumber(ARGV[4]) then return 0 end
redis.call('ZADD', KEYS[1], ARGV[3], ARGV[2])
keep()
return 1`;
// ARGV[3] until. Returns 1 when the place existed.
const EXTEND = `${PRUNE}
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[2])
keep()
return 1`;
// KEYS[2] the held result; ARGV[3] until, ARGV[4] the sealed result. Returns 1 when held.
const HOLD = `${PRUNE}
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then return 0 end
redis.call('ZADD', KEYS[1], 'XX', ARGV[3], ARGV[2])
redis.call('SET', KEYS[2], ARGV[4], 'PX', math.max(1, math.ceil(tonumber(ARGV[3]) - now)))
keep()
return 1`;
// KEYS[2] the held result. Returns it while its place has not ended (the key's own expiry is on
// Redis's clock; the place's end, like every decision here, on the replicas').
const HELD = `${PRUNE}
if not redis.call('ZSCORE', KEYS[1], ARGV[2]) then return false end
return redis.call('GET', KEYS[2])`;
// KEYS[2] the held result.
const RELEASE = `${PRUNE}
redis.call('ZREM', KEYS[1], ARGV[2])
redis.call('DEL', KEYS[2])
keep()
return 1`;

type ScriptName = 'agwTaskReserve' | 'agwTaskExtend' | 'agwTaskHold' | 'agwTaskHeld' | 'agwTaskRelease';

export interface RedisTaskLedgerOptions {
  readonly redis: RedisClient;
  readonly logger: Logger;
  /** `sharedState.redis.keyPrefix`. */
  readonly keyPrefix: string;
  readonly cipher: ValueCipher;
  /** Redis answers slower than this count as a failure (local fallback). Holding and reading a
   * result (up to `server.tasks.heldResultMaxBytes`) may take ten times as long, at least 1 s. */
  readonly timeoutMs?: number;
  /** The clock of the places' ends (ms since epoch); the fallback ledger uses it too. */
  readonly now?: () => number;
}

export class RedisTaskLedger implements TaskLedger {
  private readonly local: MemoryTaskLedger;
  private readonly now: () => number;
  private readonly timeoutMs: number;
  private degraded = false;

  constructor(private readonly options: RedisTaskLedgerOptions) {
    this.now = options.now ?? Date.now;
    this.timeoutMs = options.timeoutMs ?? 50;
    this.local = new MemoryTaskLedger({ now: this.now });
    const scripts: Record<ScriptName, string> = {
      agwTaskReserve: RESERVE,
      agwTaskExtend: EXTEND,
      agwTaskHold: HOLD,
      agwTaskHeld: HELD,
      agwTaskRelease: RELEASE,
    };
    for (const [name, lua] of Object.entries(scripts))
      options.redis.defineCommand(name, { numberOfKeys: 2, lua });
  }

  /** Whether places are shared with the other replicas right now. */
  get shared(): boolean {
    return !this.degraded;
  }

  reserve(owner: TaskOwner, slot: string, until: number, max: number): Promise<boolean> {
    return this.attempt(
      async () => (await this.script('agwTaskReserve', owner, slot, [until, max])) === 1,
      () => this.local.reserve(owner, slot, until, max),
    );
  }

  async extend(owner: TaskOwner, slot: string, until: number): Promise<void> {
    await this.local.extend(owner, slot, until);
    await this.attempt(
      () => this.script('agwTaskExtend', owner, slot, [until]),
      () => Promise.resolve(0),
    );
  }

  async release(owner: TaskOwner, slot: string): Promise<void> {
    await this.local.release(owner, slot);
    await this.attempt(
      () => this.script('agwTaskRelease', owner, slot, []),
      () => Promise.resolve(0),
    );
  }

  async hold(owner: TaskOwner, slot: string, result: Record<string, unknown>, until: number): Promise<void> {
    const name = this.heldName(owner, slot);
    const sealed = this.options.cipher.encrypt(JSON.stringify(result), name);
    const inRedis = await this.attempt(
      async () => (await this.script('agwTaskHold', owner, slot, [until, sealed], this.slowMs)) === 1,
      async () => {
        // The place was taken in Redis, out of sight now: this replica keeps the result itself.
        await this.local.reserve(owner, slot, until, Number.MAX_SAFE_INTEGER);
        return false;
      },
    );
    // A place taken during an outage lives in the local ledger (a no-op when it has none).
    if (!inRedis) await this.local.hold(owner, slot, result, until);
  }

  async held(owner: TaskOwner, slot: string): Promise<Record<string, unknown> | undefined> {
    const name = this.heldName(owner, slot);
    const stored = await this.attempt(
      () => this.script('agwTaskHeld', owner, slot, [], this.slowMs),
      () => Promise.resolve(null),
    );
    // A value no configured key opens (tampered, moved, a dropped key) is absent.
    const opened = typeof stored === 'string' ? this.options.cipher.decrypt(stored, name) : undefined;
    if (opened !== undefined) return JSON.parse(opened.plain) as Record<string, unknown>;
    return this.local.held(owner, slot);
  }

  /** Holding or reading a result moves up to `heldResultMaxBytes`, more than a counter. */
  private get slowMs(): number {
    return Math.max(this.timeoutMs * 10, 1000);
  }

  /** Runs `work` against Redis; on a failure or timeout, `fallback` (and one log line per outage). */
  private async attempt<T>(work: () => Promise<T>, fallback: () => Promise<T>): Promise<T> {
    let value: T;
    try {
      value = await work();
    } catch (error) {
      if (!this.degraded) {
        this.degraded = true;
        this.options.logger.warn(
          { err: (error as Error).name },
          'redis unavailable: task places and held results kept per replica until it returns',
        );
      }
      return fallback();
    }
    if (this.degraded) {
      this.degraded = false;
      this.options.logger.info({}, 'task places shared through redis again');
    }
    return value;
  }

  /** One of the ledger's scripts on the owner's places and the slot's held result. */
  private script(
    name: ScriptName,
    owner: TaskOwner,
    slot: string,
    args: readonly (string | number)[],
    timeoutMs = this.timeoutMs,
  ): Promise<unknown> {
    const redis = this.options.redis as unknown as Record<string, (...a: unknown[]) => Promise<unknown>>;
    // A method call on the client (ioredis defines the scripts as its own commands).
    return within(
      redis[name]!(
        this.placesName(owner),
        this.heldName(owner, slot),
        String(this.now()),
        slotDigest(slot),
        ...args.map(String),
      ),
      timeoutMs,
    );
  }

  /** The owner's key: `<p>{d(workspace)}:key:d(key id)`, the hash tag its rate limits use. */
  private ownerName(owner: TaskOwner): string {
    return `${workspaceTag(this.options.keyPrefix, owner.workspace)}:key:${keyDigest(`key\0${owner.keyId}`)}`;
  }

  private placesName(owner: TaskOwner): string {
    return `${this.ownerName(owner)}:tasks`;
  }

  /** Also the name a held result is bound to (encryption associated data): the owner and the slot. */
  private heldName(owner: TaskOwner, slot: string): string {
    return `${this.ownerName(owner)}:task:${slotDigest(slot)}`;
  }
}

function slotDigest(slot: string): string {
  return keyDigest(`task-slot\0${slot}`);
}
