// Upstream sessions shared through Redis (issue 10 test 1): three real gateway processes in front of
// one real 2025-era sessionful upstream (v1 SDK). Calls through A, B and C use one upstream session
// (the upstream's log proves it); when the upstream forgets it, the next call re-initialises once,
// and every replica then continues in the new session. A bridged elicitation started on A is
// continued on B (forwarded to A, which holds the upstream call) and a replay on C or A is refused.
import { expect, it } from 'vitest';
import { startLegacySessionfulServer } from '../fixtures/upstreams/legacy-sessionful-server.js';
import { fileReplicas, startReplicaProcesses } from '../support/redis-replicas.js';
import { MODERN_META, mcpPost, newKey } from '../support/gateway-harness.js';
import type { GatewayProcess } from '../support/gateway-processes.js';

const key = newKey();
const { upstream, gateways } = fileReplicas(
  startReplicaProcesses,
  3,
  startLegacySessionfulServer,
  'legacy',
  key,
);

async function echo(gateway: { url: string }, text: string): Promise<string | undefined> {
  const body = (await (
    await mcpPost(gateway.url, key.key, {
      method: 'tools/call',
      params: { name: 'legacy__echo', arguments: { text } },
    })
  ).json()) as { result?: { content: { text: string }[] } };
  return body.result?.content[0]?.text;
}

const callSessions = () =>
  upstream.log
    .filter((entry) => entry.rpcMethod === 'tools/call' && entry.status === 200)
    .map((entry) => entry.sessionId);

it('upstream:shared-session — calls through three replicas use one upstream session; a forgotten session is re-opened once for all', async () => {
  for (const [index, gateway] of gateways.entries())
    expect(await echo(gateway, `hello ${index}`)).toBe(`hello ${index}`);
  expect(upstream.sessionsIssued).toHaveLength(1);
  expect(new Set(callSessions())).toEqual(new Set([upstream.sessionsIssued[0]]));
  await upstream.forgetSessions();
  expect(await echo(gateways[1] as { url: string }, 'after')).toBe('after');
  expect(await echo(gateways[0] as { url: string }, 'after a')).toBe('after a');
  expect(await echo(gateways[2] as { url: string }, 'after c')).toBe('after c');
  expect(upstream.sessionsIssued).toHaveLength(2);
  const last = callSessions().slice(-3);
  expect(new Set(last)).toEqual(new Set([upstream.sessionsIssued[1]]));
});

it('discovery:list-changed-all-replicas — a list_changed from the shared upstream session refreshes the tool list on every replica', async () => {
  const names = async (gateway: { url: string }) =>
    (
      (await (await mcpPost(gateway.url, key.key, { method: 'tools/list' })).json()) as {
        result: { tools: { name: string }[] };
      }
    ).result.tools.map((t) => t.name);
  for (const gateway of gateways) expect(await names(gateway)).not.toContain('legacy__late_tool');
  const added = (await (
    await mcpPost((gateways[0] as { url: string }).url, key.key, {
      method: 'tools/call',
      params: { name: 'legacy__add_tool', arguments: { name: 'late_tool' } },
    })
  ).json()) as { result?: { content: { text: string }[] } };
  expect(added.result?.content[0]?.text).toBe('added late_tool');
  for (const gateway of gateways) {
    const deadline = Date.now() + 10_000;
    let seen = await names(gateway);
    while (!seen.includes('legacy__late_tool') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      seen = await names(gateway);
    }
    expect(seen).toContain('legacy__late_tool');
  }
});

type Rpc = { result?: Record<string, unknown>; error?: { code: number; data?: Record<string, unknown> } };

async function askName(gateway: { url: string }, extra: Record<string, unknown> = {}, id = 1): Promise<Rpc> {
  const meta = {
    ...MODERN_META,
    'io.modelcontextprotocol/clientCapabilities': { elicitation: { form: {} } },
  };
  return (await (
    await mcpPost(gateway.url, key.key, {
      id,
      method: 'tools/call',
      params: { _meta: meta, name: 'legacy__ask_name', arguments: {}, ...extra },
    })
  ).json()) as Rpc;
}

it('mcp:bridge-across-replicas — an elicitation started on A completes on B; replays on C and A are refused', async () => {
  const [a, b, c] = gateways as [GatewayProcess, GatewayProcess, GatewayProcess];
  const first = await askName(a);
  expect(first.result?.['resultType']).toBe('input_required');
  const requestState = first.result?.['requestState'] as string;
  const inputKey = Object.keys(first.result?.['inputRequests'] as object)[0] as string;
  const answer = (name: string) => ({
    requestState,
    inputResponses: { [inputKey]: { action: 'accept', content: { name } } },
  });
  const elicitCalls = () => upstream.log.filter((entry) => entry.rpcMethod === 'tools/call').length;
  const callsBefore = elicitCalls();

  const done = await askName(b, answer('Ada'), 2);
  expect(done.result?.['resultType']).toBe('complete');
  expect(JSON.stringify(done.result?.['content'])).toContain('hello Ada');

  for (const [gateway, id] of [
    [c, 3],
    [a, 4],
    [b, 5],
  ] as const) {
    const replay = await askName(gateway, answer('Eve'), id);
    expect(replay.error?.code).toBe(-32602);
    expect(replay.error?.data).toEqual({ reason: 'invalid_request_state' });
  }
  // The replays never reached the upstream: it saw no further tools/call.
  expect(elicitCalls()).toBe(callsBefore);
});
