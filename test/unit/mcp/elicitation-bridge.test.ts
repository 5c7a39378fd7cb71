// The bridge across replicas with the in-process forwarder twin: a call started on replica A is
// continued through B (forwarded to A, its owner), a replay through C is refused by A, and states
// of a replica that is gone, or forged for another owner, are refused without reaching any call.
import { describe, expect, it } from 'vitest';
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

const resumeWith = (requestState: string, inputKey: string, name: string, keyId = 'key1') => ({
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

  it('mcp:bridge-across-replicas — a missing answer re-asks, another key is refused, a gone owner is refused', async () => {
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
    expect(bridge.pending).toBe(1);
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
});
