// Rotating the shared-state encryption key without dropping sessions (issue 28.8), with real gateway
// processes in front of one real 2025-era sessionful upstream, as a rollout would do it:
//   [A] → add B after it [A, B] → move B first [B, A] → drop A [B]
// with replicas of neighbouring steps running side by side. Every plain tool call of the run goes
// through one shared upstream session (bridged calls hold sessions of their own), a bridged elicitation is continued across replicas of different steps in both
// directions, and once [B, A] has run no session value is left under A. A replica with an unrelated
// key reads nothing: the values really are encrypted.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ValueCipher } from '../../gateway/shared-state/value-cipher.js';
import { writeGatewayConfig } from '../bench/bench-gateway.js';
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import { startRedis, type RunningRedis } from '../infra/redis-server.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { mcpPost, MODERN_META } from '../support/gateway-harness.js';
import { startGatewayProcesses, type GatewayProcess } from '../support/gateway-processes.js';
import { until } from '../support/until.js';

const key = newKey();
const SECRETS = {
  AGW_KEY_A: 'rotation-test-key-a-0123456789abcdef0123',
  AGW_KEY_B: 'rotation-test-key-b-0123456789abcdef0123',
  AGW_KEY_C: 'rotation-test-key-c-0123456789abcdef0123',
};
const kid = (secret: string) => new ValueCipher([secret]).primaryId;

let redis: RunningRedis;
let upstream: RunningLegacySessionfulServer;
let dir: string;
const running: GatewayProcess[] = [];

beforeAll(async () => {
  redis = await startRedis();
  upstream = await startLegacySessionfulServer();
  dir = await mkdtemp(join(tmpdir(), 'agw-rotation-'));
}, 60_000);

afterAll(async () => {
  await Promise.all(running.map((g) => g.child.stop()));
  await upstream?.close();
  await redis?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** One replica whose encryption keys are the given environment variables, in order. */
async function replica(...keys: (keyof typeof SECRETS)[]): Promise<GatewayProcess> {
  const configPath = await writeGatewayConfig(
    dir,
    {
      sharedState: {
        redis: { url: { env: 'REDIS_URL' }, commandTimeoutMs: 500 },
        encryption: { keys: keys.map((env) => ({ env })) },
      },
      workspaces: [
        {
          name: 'demo',
          mcpSources: [httpSource('legacy', upstream.url)],
          keys: [keyRecord(key, { access: 'write' })],
        },
      ],
    },
    keys.join('-'),
  );
  const [gateway] = await startGatewayProcesses(configPath, 1, {
    ...process.env,
    ...SECRETS,
    REDIS_URL: redis.url,
  });
  running.push(gateway as GatewayProcess);
  return gateway as GatewayProcess;
}

async function stop(gateway: GatewayProcess): Promise<void> {
  running.splice(running.indexOf(gateway), 1);
  await gateway.child.stop();
}

/** Upstream sessions the echo calls went through. */
const echoSessions = () =>
  new Set(upstream.log.filter((entry) => entry.name === 'echo').map((entry) => entry.sessionId));

async function echo(gateway: GatewayProcess, text: string): Promise<void> {
  const body = (await (
    await mcpPost(gateway.url, key.key, {
      method: 'tools/call',
      params: { name: 'legacy__echo', arguments: { text } },
    })
  ).json()) as { result?: { content: { text: string }[] } };
  expect(body.result?.content[0]?.text).toBe(text);
}

const meta = { ...MODERN_META, 'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } } };

/** Starts ask_name on `from`, answers it through `through`; the greeting proves the round trip. */
async function bridged(from: GatewayProcess, through: GatewayProcess, name: string): Promise<void> {
  const call = async (gateway: GatewayProcess, extra: Record<string, unknown>) =>
    (await (
      await mcpPost(gateway.url, key.key, {
        method: 'tools/call',
        params: { _meta: meta, name: 'legacy__ask_name', arguments: {}, ...extra },
      })
    ).json()) as { result?: Record<string, unknown> };
  const first = await call(from, {});
  expect(first.result?.['resultType']).toBe('input_required');
  const inputKey = Object.keys(first.result?.['inputRequests'] as object)[0] as string;
  const done = await call(through, {
    requestState: first.result?.['requestState'],
    inputResponses: { [inputKey]: { action: 'accept', content: { name } } },
  });
  expect(JSON.stringify(done.result?.['content'])).toContain(`hello ${name}`);
}

/** The key ids the stored upstream sessions are encrypted under. */
async function sessionKeyIds(): Promise<string[]> {
  const client = new Redis(redis.url);
  try {
    const names = await client.keys('agw:session:*');
    const values = await Promise.all(names.map((name) => client.get(name)));
    return values.map((value) => /\.agwe1\.([^.]+)\./.exec(value ?? '')?.[1] ?? 'none');
  } finally {
    client.disconnect();
  }
}

it('security:redis-key-rotation — A → [A, B] → [B, A] → B keeps one upstream session and bridged calls work across every step', async () => {
  const one = await replica('AGW_KEY_A');
  await echo(one, 'one');
  expect(upstream.sessionsIssued).toHaveLength(1);
  const shared = upstream.sessionsIssued[0];
  expect(await sessionKeyIds()).toEqual([kid(SECRETS.AGW_KEY_A)]);

  // Step 1: B added after A. Both replicas read what the other writes.
  const two = await replica('AGW_KEY_A', 'AGW_KEY_B');
  await echo(two, 'two');
  await bridged(one, two, 'Ada');
  await bridged(two, one, 'Bea');
  await stop(one);

  // Step 2: B moved first. The new replica re-encrypts the session under B at start; replicas of
  // step 1 and step 2 still understand each other (states, messages, sessions).
  const three = await replica('AGW_KEY_B', 'AGW_KEY_A');
  await until('the session to be re-encrypted under B', async () =>
    (await sessionKeyIds()).join() === kid(SECRETS.AGW_KEY_B) ? true : undefined,
  );
  await echo(three, 'three');
  await echo(two, 'two again');
  await bridged(three, two, 'Cy');
  await bridged(two, three, 'Di');
  await stop(two);

  // Step 3: A dropped. Nothing needed A any more.
  const four = await replica('AGW_KEY_B');
  await echo(four, 'four');
  await bridged(four, three, 'Ed');
  await bridged(three, four, 'Flo');
  expect(echoSessions()).toEqual(new Set([shared]));
  expect(await sessionKeyIds()).toEqual([kid(SECRETS.AGW_KEY_B)]);

  // A replica with an unrelated key cannot read the stored session: it opens its own.
  const stranger = await replica('AGW_KEY_C');
  await echo(stranger, 'stranger');
  expect(echoSessions().size).toBe(2);
}, 120_000);
