// The bridge across replicas with the in-process forwarder twin: a call started on replica A is
// continued through B (forwarded to A, its owner), a replay through C is refused by A, and states
// of a replica that is gone, or forged for another owner, are refused without reaching any call.
// Then the bounds of issue 28.1: caps, retry hint, idle timer and when a session is let go.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { MemoryBridgeHub } from '../../../gateway/mcp/bridge-forwarder.js';
import { ElicitationBridge } from '../../../gateway/mcp/elicitation-bridge.js';
import { McpError } from '../../../gateway/mcp/jsonrpc.js';
import { RequestStateSeal } from '../../../gateway/mcp/request-state-seal.js';
import type { BridgedConnection } from '../../../gateway/upstream/bridged-connection.js';

const sharedKey = Buffer.alloc(32, 3);

function replicas(hub: MemoryBridgeHub, names: string[]): ElicitationBridge[] {
  return names.map((name) => {
    const seal = new RequestStateSeal([sharedKey]);
    return new ElicitationBridge({ seal, forwarder: hub.forwarder(name) });
  });
}

/** An upstream tool that asks one question and greets with the answer. */
function startAsking(bridge: ElicitationBridge, closed: string[]) {
  return bridge.start({
    keyId: 'key1',
    workspace: 'demo',
    tool: 'legacy__ask_name',
    args: {},
    connect: (onServerRequest) => {
      const connection: BridgedConnection = {
        callTool: async () => {
          const answer = await onServerRequest('elicitation/create', { message: 'Name?' });
          const content = answer['content'] as { name: string } | undefined;
          return { content: [{ type: 'text', text: `hello ${content?.name ?? '?'}` }] };
        },
        close: () => {
          closed.push('closed');
          return Promise.resolve();
        },
      };
      return Promise.resolve(connection);
    },
    call: (connection) => connection.callTool('ask_name', {}, AbortSignal.timeout(5000), 5000),
  });
}

const resumeWith = (
  requestState: string,
  inputKey: string,
  name: string,
  keyId = 'key1',
  workspace = 'demo',
) => ({
  workspace,
  keyId,
  tool: 'legacy__ask_name',
  args: {},
  requestState,
  inputResponses: { [inputKey]: { action: 'accept', content: { name } } },
});

describe('ElicitationBridge across replicas', () => {
  it('mcp:bridge-across-replicas — started on A, continued on B, replayed on C: completes once', async () => {
    const hub = new MemoryBridgeHub();
    const [a, b, c] = replicas(hub, ['A', 'B', 'C']) as [
      ElicitationBridge,
      ElicitationBridge,
      ElicitationBridge,
    ];
    const closed: string[] = [];
    const first = await startAsking(a, closed);
    expect(first['resultType']).toBe('input_required');
    const requestState = first['requestState'] as string;
    const inputKey = Object.keys(first['inputRequests'] as object)[0] as string;
    expect(a.open).toBe(1);

    const done = await b.resume(resumeWith(requestState, inputKey, 'Ada'), 1000);
    expect(done['content']).toEqual([{ type: 'text', text: 'hello Ada' }]);
    expect(a.open).toBe(0);
    expect(b.open).toBe(0);
    expect(closed).toEqual(['closed']);

    for (const replay of [c, a, b]) {
      const refused = await replay
        .resume(resumeWith(requestState, inputKey, 'Eve'), 1000)
        .catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(McpError);
      expect((refused as McpError).rpcCode).toBe(-32602);
    }
  });

  it('mcp:bridge-across-replicas — a missing answer re-asks, another key or the same key id of another workspace is refused (oauth:request-state-bound-to-workspace), a gone owner is refused', async () => {
    const hub = new MemoryBridgeHub();
    const [a, b] = replicas(hub, ['A', 'B']) as [ElicitationBridge, ElicitationBridge];
    const first = await startAsking(a, []);
    const requestState = first['requestState'] as string;
    const inputKey = Object.keys(first['inputRequests'] as object)[0] as string;

    const again = await b.resume({ ...resumeWith(requestState, inputKey, 'x'), inputResponses: {} }, 1000);
    expect(again['resultType']).toBe('input_required');
    const stolen = await b
      .resume(resumeWith(requestState, inputKey, 'Mallory', 'key2'), 1000)
      .catch((e: unknown) => e);
    expect((stolen as McpError).rpcCode).toBe(-32602);
    expect(a.open).toBe(1);
    // The same key id in another workspace (issue 37 item 1: two tenants declaring one issuer).
    const elsewhere = await b
      .resume(resumeWith(requestState, inputKey, 'Mallory', 'key1', 'evil'), 1000)
      .catch((e: unknown) => e);
    expect((elsewhere as McpError).rpcCode).toBe(-32602);
    expect(a.open).toBe(1);

    await a.close();
    const gone = await b.resume(resumeWith(requestState, inputKey, 'Ada'), 1000).catch((e: unknown) => e);
    expect((gone as McpError).data).toEqual({ reason: 'invalid_request_state' });
  });

  it('mcp:bridge-across-replicas — a state sealed for one owner cannot be redirected to another', async () => {
    const hub = new MemoryBridgeHub();
    const [a, b] = replicas(hub, ['A', 'B']) as [ElicitationBridge, ElicitationBridge];
    const first = await startAsking(a, []);
    const requestState = first['requestState'] as string;
    const inputKey = Object.keys(first['inputRequests'] as object)[0] as string;
    const [prefix, body, mac] = requestState.split('.');
    const payload = JSON.parse(Buffer.from(body as string, 'base64url').toString()) as Record<
      string,
      unknown
    >;
    expect(payload['owner']).toBe('A');
    const redirected = `${prefix}.${Buffer.from(JSON.stringify({ ...payload, owner: 'B' })).toString('base64url')}.${mac}`;
    const refused = await b.resume(resumeWith(redirected, inputKey, 'Eve'), 1000).catch((e: unknown) => e);
    expect((refused as McpError).rpcCode).toBe(-32602);
    const done = await b.resume(resumeWith(requestState, inputKey, 'Ada'), 1000);
    expect(done['content']).toEqual([{ type: 'text', text: 'hello Ada' }]);
  });
});

describe('ElicitationBridge bounds (issue 28.1)', () => {
  it('attacker:pending-flow-client-gone — a call whose client goes away before its first answer is released at once, its connection closed', async () => {
    const bridge = new ElicitationBridge({
      limits: () => ({ maxPendingPerKey: 2, maxPendingPerWorkspace: 10, idleTimeoutMs: 600_000 }),
    });
    const controller = new AbortController();
    const closed: string[] = [];
    let connected!: () => void;
    const connecting = new Promise<void>((resolve) => (connected = resolve));
    const started = bridge.start({
      keyId: 'key1',
      workspace: 'demo',
      signal: controller.signal,
      tool: 'legacy__ask_name',
      args: {},
      connect: async () => {
        await connecting;
        return {
          callTool: () => new Promise<Record<string, unknown>>(() => undefined),
          close: () => {
            closed.push('closed');
            return Promise.resolve();
          },
        } satisfies BridgedConnection;
      },
      call: (connection) => connection.callTool('ask_name', {}, AbortSignal.timeout(5000), 5000),
    });
    controller.abort();
    connected();
    await expect(started).rejects.toThrow(/disconnected/);
    // Released without waiting for the (ten-minute) idle timeout.
    expect(bridge.pending).toBe(0);
    expect(closed).toEqual(['closed']);
  });

  it('attacker:pending-flows-capped — past the per-key cap a call is refused as rate_limited before connecting; answering one frees its slot', async () => {
    const bridge = new ElicitationBridge({
      limits: () => ({ maxPendingPerKey: 2, maxPendingPerWorkspace: 10, idleTimeoutMs: 600_000 }),
    });
    const closed: string[] = [];
    const first = await startAsking(bridge, closed);
    await startAsking(bridge, closed);
    expect(bridge.pending).toBe(2);
    const refused = await startAsking(bridge, closed).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(McpError);
    expect(refused).toMatchObject({ httpStatus: 429, rpcCode: -31018, errorClass: 'request' });
    expect((refused as McpError).headers['retry-after']).toBe('600');
    // Answering the first call completes it and frees its slot.
    const inputKey = Object.keys(first['inputRequests'] as Record<string, unknown>)[0] as string;
    await bridge.resume(
      {
        workspace: 'demo',
        keyId: 'key1',
        tool: 'legacy__ask_name',
        args: {},
        requestState: first['requestState'] as string,
        inputResponses: { [inputKey]: { action: 'accept', content: { name: 'Ada' } } },
      },
      5000,
    );
    expect(bridge.pending).toBe(1);
    expect((await startAsking(bridge, closed))['resultType']).toBe('input_required');
    await bridge.close();
    expect(bridge.pending).toBe(0);
  });

  it('attacker:pending-flows-capped — calls racing to their first question cannot pass the cap: the late ones are declined upstream, closed and refused', async () => {
    const bridge = new ElicitationBridge({ limits: () => limits(2, 10, 600_000) });
    const upstream = askingUpstream();
    const outcomes = await Promise.allSettled(
      Array.from({ length: 5 }, () => bridge.start(upstream.start('key1'))),
    );
    const admitted = outcomes.filter((o) => o.status === 'fulfilled');
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => o.reason as McpError);
    expect(admitted).toHaveLength(2);
    expect(refused).toHaveLength(3);
    for (const error of refused) expect(error).toMatchObject({ httpStatus: 429, rpcCode: -31018 });
    await new Promise((resolve) => setImmediate(resolve));
    expect(upstream.log.filter((line) => line === 'answered cancel')).toHaveLength(3);
    expect(upstream.log.filter((line) => line === 'closed')).toHaveLength(3);
    expect(bridge.pending).toBe(2);
    await bridge.close();
  });

  it('attacker:pending-flows-capped — the retry hint is the time until the first waiting flow is released, per key and per workspace', async () => {
    let now = 1_000_000;
    const bridge = new ElicitationBridge({ now: () => now, limits: () => limits(2, 3, 600_000) });
    const upstream = askingUpstream();
    await bridge.start(upstream.start('key1'));
    now += 100_000;
    await bridge.start(upstream.start('key1'));
    const byKey = (await bridge.start(upstream.start('key1')).catch((e: unknown) => e)) as McpError;
    expect(byKey.headers['retry-after']).toBe('500');
    expect(byKey.data).toMatchObject({ code: 'rate_limited', class: 'request', retryAfterSeconds: 500 });
    now += 50_000;
    await bridge.start(upstream.start('key2'));
    const byWorkspace = (await bridge.start(upstream.start('key3')).catch((e: unknown) => e)) as McpError;
    expect(byWorkspace.headers['retry-after']).toBe('450');
    expect(byWorkspace.data).toMatchObject({ limit: { maxPendingPerWorkspace: 3 } });
    // The refusals cost no upstream session.
    expect(upstream.connects()).toBe(3);
    await bridge.close();
  });

  it('attacker:pending-flows-capped — an upstream that ends while its call waits for the client lets the session go at once (recycled); the retry gets the outcome', async () => {
    const bridge = new ElicitationBridge({ limits: () => limits(2, 10, 600_000) });
    const upstream = askingUpstream();
    const first = await bridge.start(upstream.start('key1'));
    upstream.endAll('gave up waiting');
    await new Promise((resolve) => setImmediate(resolve));
    expect(upstream.log.toSorted()).toEqual(['answered cancel', 'recycled']);
    expect(bridge.pending).toBe(1);
    const done = await bridge.resume(answerTo(first, 'Ada'), 1000);
    expect(done['content']).toEqual([{ type: 'text', text: 'gave up waiting' }]);
    expect(bridge.pending).toBe(0);
    expect(upstream.log.toSorted()).toEqual(['answered cancel', 'recycled']);
  });

  it('attacker:pending-flows-capped — a call ended with its result is recycled; one declined by the idle timer is closed', async () => {
    vi.useFakeTimers();
    const bridge = new ElicitationBridge({ limits: () => limits(2, 10, 1000) });
    const upstream = askingUpstream();
    const first = await bridge.start(upstream.start('key1'));
    await bridge.resume(answerTo(first, 'Ada'), 1000);
    expect(upstream.log).toEqual(['answered accept', 'recycled']);
    await bridge.start(upstream.start('key1'));
    await vi.advanceTimersByTimeAsync(1000);
    expect(upstream.log.slice(2).toSorted()).toEqual(['answered cancel', 'closed']);
    expect(bridge.pending).toBe(0);
    expect(bridge.open).toBe(0);
  });

  it('attacker:pending-flows-capped — an answered call runs on its own time-out, not the idle timer; asking again without an answer restarts the timer', async () => {
    vi.useFakeTimers();
    const bridge = new ElicitationBridge({ limits: () => limits(2, 10, 1000) });
    const upstream = askingUpstream({ workMs: 800 });
    const first = await bridge.start(upstream.start('key1'));
    await vi.advanceTimersByTimeAsync(600);
    const again = await bridge.resume({ ...answerTo(first, 'x'), inputResponses: {} }, 1000);
    expect(again['resultType']).toBe('input_required');
    await vi.advanceTimersByTimeAsync(900);
    const done = bridge.resume(answerTo(again, 'Ada'), 1000);
    await vi.advanceTimersByTimeAsync(800);
    expect((await done)['content']).toEqual([{ type: 'text', text: 'hello Ada' }]);
    expect(upstream.log).toEqual(['answered accept', 'recycled']);
  });
});

afterEach(() => {
  vi.useRealTimers();
});

const limits = (maxPendingPerKey: number, maxPendingPerWorkspace: number, idleTimeoutMs: number) => ({
  maxPendingPerKey,
  maxPendingPerWorkspace,
  idleTimeoutMs,
});

function answerTo(result: Record<string, unknown>, name: string) {
  const inputKey = Object.keys(result['inputRequests'] as Record<string, unknown>)[0] as string;
  return resumeWith(result['requestState'] as string, inputKey, name);
}

/** A twin upstream whose tool asks one question (after `workMs` of work once answered, it greets);
 * its sessions log how they are answered and let go, and `endAll` ends every call unanswered. */
function askingUpstream(options: { workMs?: number } = {}) {
  const log: string[] = [];
  const ends: ((text: string) => void)[] = [];
  let connects = 0;
  const connect = (onServerRequest: Parameters<Parameters<ElicitationBridge['start']>[0]['connect']>[0]) => {
    connects += 1;
    let fail: (error: Error) => void = () => undefined;
    const connection: BridgedConnection = {
      callTool: () =>
        new Promise((resolve, reject) => {
          fail = reject;
          ends.push((text) => resolve({ content: [{ type: 'text', text }] }));
          void onServerRequest('elicitation/create', { message: 'Name?' }).then(async (answer) => {
            log.push(`answered ${String(answer['action'])}`);
            if (options.workMs !== undefined) await new Promise((r) => setTimeout(r, options.workMs));
            const content = answer['content'] as { name?: string } | undefined;
            resolve({ content: [{ type: 'text', text: `hello ${content?.name ?? '?'}` }] });
          });
        }),
      close: () => {
        log.push('closed');
        fail(new Error('closed'));
        return Promise.resolve();
      },
      recycle: () => {
        log.push('recycled');
        return Promise.resolve();
      },
    };
    return Promise.resolve(connection);
  };
  return {
    log,
    connects: () => connects,
    endAll: (text: string) => {
      for (const end of ends.splice(0)) end(text);
    },
    start: (keyId: string) => ({
      keyId,
      workspace: 'demo',
      tool: 'legacy__ask_name',
      args: {},
      connect,
      call: (connection: BridgedConnection) =>
        connection.callTool('ask_name', {}, AbortSignal.timeout(60_000), 60_000),
    }),
  };
}
