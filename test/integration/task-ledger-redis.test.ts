// One contract for both TaskLedger implementations (issue 43): the in-memory twin and the Redis one
// against a real redis-server, on one injected clock. Plus what only Redis does: two replicas share
// one count (also when they race for the last place), Redis holds no workspace, key id, slot or
// result in clear and a held result moved to another owner does not open, and a Redis that is
// killed or stalled leaves each replica deciding alone, without a failed call.
import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisTaskLedger } from '../../gateway/limits/redis-task-ledger.js';
import { MemoryTaskLedger, type TaskLedger, type TaskOwner } from '../../gateway/limits/task-ledger.js';
import { createRedis, redisReady, type RedisClient } from '../../gateway/shared-state/redis-connection.js';
import { ValueCipher } from '../../gateway/shared-state/value-cipher.js';
import type { Logger } from '../../gateway/telemetry/logger.js';
import { startRedis, type RunningRedis } from '../infra/redis-server.js';

let redis: RunningRedis;
const clients: RedisClient[] = [];
const cipher = new ValueCipher([randomBytes(32).toString('base64')]);
/** One clock for every ledger here, moved by the tests; Redis decides on it too. */
const clock = { now: Date.now() };
const now = () => clock.now;
/** A place's length in the contract: long in real time too, as Redis keys expire on Redis's clock. */
const D = 60_000;

interface LogLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}
function recordingLogger(lines: LogLine[]): Logger {
  const logger: Logger = {
    debug: (fields, message) => void lines.push({ level: 'debug', fields, message }),
    info: (fields, message) => void lines.push({ level: 'info', fields, message }),
    warn: (fields, message) => void lines.push({ level: 'warn', fields, message }),
    error: (fields, message) => void lines.push({ level: 'error', fields, message }),
    child: () => logger,
  };
  return logger;
}

beforeAll(async () => {
  redis = await startRedis();
});
afterAll(async () => {
  for (const client of clients) client.disconnect();
  await redis.stop();
});

/** Generous by default (a loaded machine must not fall back mid-contract); the outage test's is short. */
async function redisLedger(
  server: RunningRedis = redis,
  lines: LogLine[] = [],
  timeoutMs = 2000,
): Promise<RedisTaskLedger> {
  const client = createRedis({ url: server.url, logger: recordingLogger([]) });
  clients.push(client);
  expect(await redisReady(client)).toBe(true);
  const ledger = new RedisTaskLedger({
    redis: client,
    logger: recordingLogger(lines),
    keyPrefix: 'agw:',
    cipher,
    timeoutMs,
    now,
  });
  return ledger;
}

/** A fresh owner per test, so tests sharing the Redis never see each other's places. */
const owner = (label: string): TaskOwner => ({
  workspace: `ws-${label}-${randomBytes(4).toString('hex')}`,
  keyId: `key-${label}-${randomBytes(4).toString('hex')}`,
});

describe.each([
  ['memory', () => Promise.resolve(new MemoryTaskLedger({ now }) as TaskLedger)],
  ['redis', async () => (await redisLedger()) as TaskLedger],
])('%s task ledger', (_name, make) => {
  it('tasks:ledger-contract-bound — max places per owner, refusals take nothing, expired places never count', async () => {
    const ledger = await make();
    const alice = owner('bound');
    for (const slot of ['a', 'b', 'c'])
      expect(await ledger.reserve(alice, slot, clock.now + D, 3)).toBe(true);
    for (let i = 0; i < 5; i += 1)
      expect(await ledger.reserve(alice, `over-${i}`, clock.now + D, 3)).toBe(false);
    clock.now += D - 1;
    expect(await ledger.reserve(alice, 'd', clock.now + D, 3)).toBe(false);
    clock.now += 1;
    for (const slot of ['d', 'e', 'f'])
      expect(await ledger.reserve(alice, slot, clock.now + D, 3)).toBe(true);
    expect(await ledger.reserve(alice, 'g', clock.now + D, 3)).toBe(false);
    expect(await ledger.reserve(alice, 'g', clock.now + D, 4)).toBe(true);
  });

  it('tasks:ledger-contract-release-extend — release frees a place and drops its result; extend moves a known end only', async () => {
    const ledger = await make();
    const alice = owner('extend');
    expect(await ledger.reserve(alice, 'call', clock.now + D, 2)).toBe(true);
    expect(await ledger.reserve(alice, 'task', clock.now + D, 2)).toBe(true);
    await ledger.extend(alice, 'task', clock.now + 3_600_000);
    await ledger.hold(alice, 'call', { content: [] }, clock.now + D);
    await ledger.release(alice, 'call');
    expect(await ledger.held(alice, 'call')).toBeUndefined();
    clock.now += D + 5000;
    // 'task' was extended: it still counts, so one place is left of two.
    expect(await ledger.reserve(alice, 'n1', clock.now + D, 2)).toBe(true);
    expect(await ledger.reserve(alice, 'n2', clock.now + D, 2)).toBe(false);
    await ledger.release(alice, 'task');
    expect(await ledger.reserve(alice, 'n2', clock.now + D, 2)).toBe(true);
    clock.now += D;
    // n1 and n2 have ended: extending them (or a slot never taken) brings nothing back.
    await ledger.extend(alice, 'n1', clock.now + 60_000);
    await ledger.extend(alice, 'never', clock.now + 60_000);
    for (const slot of ['m1', 'm2']) expect(await ledger.reserve(alice, slot, clock.now + D, 2)).toBe(true);
  });

  it('tasks:ledger-contract-held — a held result reads back until its end, takes its place until then, and needs a place', async () => {
    const ledger = await make();
    const alice = owner('held');
    const result = {
      content: [{ type: 'text', text: 'Ω forty-two ✓' }],
      structuredContent: { answer: 42, nested: [true, null, 'x'] },
      isError: false,
    };
    expect(await ledger.reserve(alice, 'done', clock.now + D, 1)).toBe(true);
    expect(await ledger.held(alice, 'done')).toBeUndefined();
    await ledger.hold(alice, 'done', result, clock.now + 600_000);
    expect(await ledger.held(alice, 'done')).toEqual(result);
    clock.now += 599_999;
    expect(await ledger.reserve(alice, 'next', clock.now + D, 1)).toBe(false);
    expect(await ledger.held(alice, 'done')).toEqual(result);
    clock.now += 1;
    expect(await ledger.held(alice, 'done')).toBeUndefined();
    expect(await ledger.reserve(alice, 'next', clock.now + D, 1)).toBe(true);
    // No place, nothing held: a refused slot and a slot never taken.
    await ledger.hold(alice, 'refused', result, clock.now + 600_000);
    await ledger.hold(alice, 'never', result, clock.now + 600_000);
    expect(await ledger.held(alice, 'refused')).toBeUndefined();
    expect(await ledger.held(alice, 'never')).toBeUndefined();
    expect(await ledger.reserve(alice, 'again', clock.now + D, 1)).toBe(false);
  });

  it('tasks:ledger-contract-owners — another workspace or another key neither sees nor frees an owner’s places', async () => {
    const ledger = await make();
    const alice = owner('owners');
    const otherWorkspace = { workspace: `${alice.workspace}-x`, keyId: alice.keyId };
    const otherKey = { workspace: alice.workspace, keyId: `${alice.keyId}-x` };
    const until = clock.now + 60_000;
    expect(await ledger.reserve(alice, 'slot', until, 1)).toBe(true);
    await ledger.hold(alice, 'slot', { content: [], mine: 'alice' }, until);
    for (const other of [otherWorkspace, otherKey]) {
      expect(await ledger.held(other, 'slot')).toBeUndefined();
      await ledger.release(other, 'slot');
      await ledger.extend(other, 'slot', clock.now + 1);
      await ledger.hold(other, 'slot', { content: [], mine: 'other' }, until);
      expect(await ledger.reserve(other, 'slot', until, 1)).toBe(true);
      expect(await ledger.reserve(other, 'more', until, 1)).toBe(false);
    }
    expect(await ledger.held(alice, 'slot')).toEqual({ content: [], mine: 'alice' });
    expect(await ledger.reserve(alice, 'more', until, 1)).toBe(false);
  });
});

describe('shared through Redis', () => {
  it('tasks:ledger-replicas — two replicas see one count, also when they race for the last places', async () => {
    const [one, two] = [await redisLedger(), await redisLedger()];
    const alice = owner('replicas');
    expect(await one.reserve(alice, 'a', clock.now + 60_000, 2)).toBe(true);
    expect(await two.reserve(alice, 'b', clock.now + 60_000, 2)).toBe(true);
    expect(await one.reserve(alice, 'c', clock.now + 60_000, 2)).toBe(false);
    await two.hold(alice, 'a', { content: [{ type: 'text', text: 'held by two' }] }, clock.now + 60_000);
    expect(await one.held(alice, 'a')).toEqual({ content: [{ type: 'text', text: 'held by two' }] });
    await one.release(alice, 'b');
    expect(await two.reserve(alice, 'c', clock.now + 60_000, 2)).toBe(true);
    await two.release(alice, 'a');
    expect(await one.held(alice, 'a')).toBeUndefined();

    const racing = owner('race');
    const verdicts = await Promise.all(
      Array.from({ length: 40 }, (_, i) =>
        (i % 2 === 0 ? one : two).reserve(racing, `r${i}`, clock.now + 60_000, 7),
      ),
    );
    expect(verdicts.filter(Boolean)).toHaveLength(7);
    expect(one.shared && two.shared).toBe(true);
  });

  it('tasks:ledger-redis-opaque — no workspace, key id, slot or result in clear; everything expires; a moved result does not open', async () => {
    const ledger = await redisLedger();
    const marker = randomBytes(6).toString('hex');
    const alice = { workspace: `opaque-ws-${marker}`, keyId: `opaque-key-${marker}` };
    const bob = { workspace: alice.workspace, keyId: `other-key-${marker}` };
    const slot = `slot-${marker}`;
    const secret = `held-answer-${marker}`;
    const inspector = new Redis(redis.url);
    try {
      const snapshot = async () => {
        const names = await inspector.keys('*');
        const values = await Promise.all(
          names.map(async (name) => {
            const type = await inspector.type(name);
            if (type === 'zset') return (await inspector.zrange(name, '0', '-1', 'WITHSCORES')).join(' ');
            if (type === 'string') return (await inspector.get(name)) ?? '';
            return `unexpected ${type}`;
          }),
        );
        return { names, values };
      };
      await inspector.flushall();
      expect(await ledger.reserve(alice, slot, clock.now + 60_000, 5)).toBe(true);
      await ledger.hold(alice, slot, { content: [{ type: 'text', text: secret }] }, clock.now + 60_000);
      const aliceHeld = (await snapshot()).names.filter((name) => name.includes(':task:'));
      expect(aliceHeld).toHaveLength(1);
      expect(await ledger.reserve(bob, slot, clock.now + 60_000, 5)).toBe(true);
      await ledger.hold(bob, slot, { content: [{ type: 'text', text: 'bob' }] }, clock.now + 60_000);

      const { names, values } = await snapshot();
      expect(names).toHaveLength(4);
      for (const text of [...names, ...values])
        for (const clear of [alice.workspace, alice.keyId, bob.keyId, slot, secret, marker, 'bob'])
          expect(text).not.toContain(clear);
      for (const value of values) expect(value).not.toMatch(/unexpected/);
      for (const name of names) {
        const ttl = await inspector.pttl(name);
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(60_000);
      }
      // Alice's sealed result copied over Bob's: bound to Alice's name, it does not open for Bob.
      const bobHeld = names.find((name) => name.includes(':task:') && name !== aliceHeld[0]) as string;
      await inspector.set(bobHeld, (await inspector.get(aliceHeld[0] as string)) as string, 'PX', 60_000);
      expect(await ledger.held(bob, slot)).toBeUndefined();
      expect(await ledger.held(alice, slot)).toEqual({ content: [{ type: 'text', text: secret }] });
      expect(ledger.shared).toBe(true);
    } finally {
      inspector.disconnect();
    }
  });
});

describe('Redis away', () => {
  it('tasks:ledger-redis-down — killed or stalled, each call falls back to the replica’s own ledger without throwing, logged once', async () => {
    const own = await startRedis();
    try {
      const lines: LogLine[] = [];
      const ledger = await redisLedger(own, lines, 200);
      const alice = owner('down');
      const shared = 'before-outage';
      expect(await ledger.reserve(alice, shared, clock.now + 60_000, 2)).toBe(true);

      await own.kill();
      // The place taken in Redis is out of sight: locally the owner starts from none.
      expect(await ledger.reserve(alice, 'l1', clock.now + 60_000, 2)).toBe(true);
      expect(await ledger.reserve(alice, 'l2', clock.now + 60_000, 2)).toBe(true);
      expect(await ledger.reserve(alice, 'l3', clock.now + 60_000, 2)).toBe(false);
      expect(ledger.shared).toBe(false);
      await ledger.hold(alice, 'l1', { content: [{ type: 'text', text: 'kept here' }] }, clock.now + 60_000);
      expect(await ledger.held(alice, 'l1')).toEqual({ content: [{ type: 'text', text: 'kept here' }] });
      // A result of a place taken in Redis before the outage is kept locally too.
      await ledger.hold(alice, shared, { content: [{ type: 'text', text: 'finished' }] }, clock.now + 60_000);
      expect(await ledger.held(alice, shared)).toEqual({ content: [{ type: 'text', text: 'finished' }] });
      await ledger.extend(alice, 'l2', clock.now + 120_000);
      await ledger.release(alice, 'l2');
      expect(await ledger.reserve(alice, 'l3', clock.now + 60_000, 3)).toBe(true);
      const warnings = lines.filter((line) => line.level === 'warn');
      expect(warnings).toHaveLength(1);
      expect(JSON.stringify(warnings)).not.toContain(alice.keyId);

      // Back: shared again (and said so once); what was held locally meanwhile is still found.
      await own.restart();
      const deadline = Date.now() + 10_000;
      while (!ledger.shared && Date.now() < deadline) {
        await ledger.reserve(owner('probe'), 'probe', clock.now + D, 1);
        await new Promise((r) => setTimeout(r, 100));
      }
      expect(ledger.shared).toBe(true);
      expect(lines.filter((line) => line.level === 'info')).toHaveLength(1);
      expect(await ledger.held(alice, 'l1')).toEqual({ content: [{ type: 'text', text: 'kept here' }] });
      await ledger.release(alice, 'l1');
      expect(await ledger.held(alice, 'l1')).toBeUndefined();

      // Stalled (nothing answers): every call still returns within its deadline.
      own.pause();
      try {
        const started = Date.now();
        expect(await ledger.reserve(alice, 's1', clock.now + 60_000, 100)).toBe(true);
        await ledger.hold(alice, 's1', { content: [] }, clock.now + 60_000);
        expect(await ledger.held(alice, 's1')).toEqual({ content: [] });
        await ledger.release(alice, 's1');
        // Timeouts: 200 ms for places, 2 s for holding and reading a result.
        expect(Date.now() - started).toBeLessThan(8000);
        expect(ledger.shared).toBe(false);
      } finally {
        own.resume();
      }
    } finally {
      await own.stop();
    }
  });
});
