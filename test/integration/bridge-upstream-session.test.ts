// The upstream side of bridged calls with a real legacy upstream (v1 SDK): a key answering one flow
// after another reuses one upstream session (a 2025-era session carries one bridged call at a time,
// issue 28.1), a session the upstream forgot is replaced unnoticed, and a call starts only once its
// session's GET stream is open: the v1 server sends an elicitation not tied to the call on that
// stream and drops it while the stream is not there yet (on a loaded server, the call then hangs).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import { keyRecord, newKeys } from '../support/gateway-document.js';
import { mcpPost, MODERN_META, startWorkspace, type Harness } from '../support/gateway-harness.js';

const [alice, bob] = newKeys(2);
let legacy: RunningLegacySessionfulServer;
let h: Harness;
const elicitMeta = {
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
};

beforeAll(async () => {
  // Every session's GET stream opens 300 ms late: without waiting for it, every bridged call of a
  // new session would lose its question and time out.
  legacy = await startLegacySessionfulServer({ streamDelayMs: 300 });
  h = await startWorkspace({
    mcpSources: [
      { name: 'legacy', transport: 'streamable-http', url: legacy.url, timeouts: { callMs: 5000 } },
    ],
    keys: [keyRecord(alice, { access: 'write' }), keyRecord(bob, { access: 'write' })],
  });
});

afterAll(async () => {
  await h.stop();
  await legacy.close();
});

type Rpc = { result?: Record<string, unknown>; error?: unknown };

async function ask(key: string, id: number, params: Record<string, unknown> = {}): Promise<Rpc> {
  const response = await mcpPost(h.url, key, {
    id,
    method: 'tools/call',
    params: { name: 'legacy__ask_name', arguments: {}, _meta: elicitMeta, ...params },
  });
  return (await response.json()) as Rpc;
}

/** One whole flow: the question, then the answer. */
async function flow(key: string, id: number, name: string): Promise<void> {
  const first = await ask(key, id);
  expect(first.result?.['resultType'], JSON.stringify(first)).toBe('input_required');
  const inputKey = Object.keys(first.result?.['inputRequests'] as Record<string, unknown>)[0] as string;
  const done = await ask(key, id + 1, {
    inputResponses: { [inputKey]: { action: 'accept', content: { name } } },
    requestState: first.result?.['requestState'],
  });
  expect(JSON.stringify(done.result?.['content']), JSON.stringify(done)).toContain(`hello ${name}`);
}

describe('bridged upstream sessions', () => {
  it('mcp:bridge-waits-for-stream — a bridged call on a new session gets its question even when the GET stream opens late', async () => {
    await flow(alice.key, 1, 'Ada');
  });

  it('attacker:bridged-sessions-reused — a key answering one flow after another uses one upstream session; another key gets its own; a forgotten session is replaced', async () => {
    // Alice's session from the test above is parked: her next flows reuse it.
    const issuedBefore = legacy.sessionsIssued.length;
    for (let i = 0; i < 5; i += 1) await flow(alice.key, 100 + i * 2, `a${i}`);
    expect(legacy.sessionsIssued.length - issuedBefore).toBe(0);
    // Sessions are never shared across keys (an upstream may keep what one caller answered).
    await flow(bob.key, 200, 'Bob');
    await flow(bob.key, 202, 'Bob');
    expect(legacy.sessionsIssued.length - issuedBefore).toBe(1);

    // The upstream restarts: each parked session answers 404 once and is replaced on the spot, one
    // new session per key (the source's pooled session is not dropped for it).
    await legacy.forgetSessions();
    const issuedAtRestart = legacy.sessionsIssued.length;
    await flow(alice.key, 300, 'after restart');
    await flow(alice.key, 302, 'again');
    expect(JSON.stringify(await ask(bob.key, 304))).toContain('input_required');
    expect(legacy.sessionsIssued.length - issuedAtRestart).toBe(2);
  }, 60_000);
});
