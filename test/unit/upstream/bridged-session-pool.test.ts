// Bridged sessions reused where the protocol allows (issue 28.1), with twin connections: one call at
// a time, per key and capabilities, a few per source for a short while, a forgotten one replaced.
import { SdkErrorCode, SdkHttpError } from '@modelcontextprotocol/client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { McpSourceConfig } from '../../../gateway/config/index.js';
import type {
  RebindableBridgedConnection,
  ServerRequestHandler,
} from '../../../gateway/upstream/bridged-connection.js';
import { BridgedSessionPool } from '../../../gateway/upstream/bridged-session-pool.js';

interface TwinSession extends RebindableBridgedConnection {
  readonly id: number;
  alive: boolean;
  forgotten: boolean;
  closed: number;
  handler: ServerRequestHandler;
}

function twins() {
  const sessions: TwinSession[] = [];
  const connect = (_source: McpSourceConfig, _caps: unknown, handler: ServerRequestHandler) => {
    const session: TwinSession = {
      id: sessions.length + 1,
      alive: true,
      forgotten: false,
      closed: 0,
      handler,
      bind(next) {
        session.handler = next;
      },
      async callTool() {
        if (session.forgotten)
          throw new SdkHttpError(SdkErrorCode.ClientHttpNotImplemented, 'Session not found', {
            status: 404,
            statusText: 'Not Found',
          });
        const answer = await session.handler('elicitation/create', { message: 'Name?' });
        return { content: [{ type: 'text', text: `session ${session.id}: ${String(answer['action'])}` }] };
      },
      close() {
        session.closed += 1;
        session.alive = false;
        return Promise.resolve();
      },
    };
    sessions.push(session);
    return Promise.resolve(session);
  };
  return { sessions, connect };
}

const source = { name: 'legacy' } as McpSourceConfig;
const elicit = { elicitation: { form: {} } };
const accept: ServerRequestHandler = () => Promise.resolve({ action: 'accept' });
const request = (keyId: string, over: Partial<{ source: McpSourceConfig; capabilities: object }> = {}) => ({
  source: over.source ?? source,
  capabilities: over.capabilities ?? elicit,
  onServerRequest: accept,
  workspace: 'demo',
  keyId,
});

afterEach(() => {
  vi.useRealTimers();
});

describe('BridgedSessionPool', () => {
  it('attacker:bridged-sessions-reused — a session recycled after its result carries the next call of the same key, rebound to it', async () => {
    const { sessions, connect } = twins();
    const pool = new BridgedSessionPool(connect, () => 'v1');
    const first = await pool.acquire(request('key1'));
    await first.callTool('ask', {}, AbortSignal.timeout(1000), 1000);
    await first.recycle?.();
    await first.close(); // settled once: recycling wins, nothing is closed
    expect(pool.idle).toBe(1);
    const asked: string[] = [];
    const second = await pool.acquire({
      ...request('key1'),
      onServerRequest: (method) => {
        asked.push(method);
        return Promise.resolve({ action: 'decline' });
      },
    });
    expect(await second.callTool('ask', {}, AbortSignal.timeout(1000), 1000)).toEqual({
      content: [{ type: 'text', text: 'session 1: decline' }],
    });
    expect(asked).toEqual(['elicitation/create']);
    expect(sessions).toHaveLength(1);
    expect(sessions[0]?.closed).toBe(0);
    // While parked, the session's server→client requests are refused, not sent to an old call.
    await second.recycle?.();
    await expect(sessions[0]?.handler('elicitation/create', {})).rejects.toThrow(/no call/);
    await pool.close();
    expect(sessions[0]?.closed).toBe(1);
  });

  it('attacker:bridged-sessions-reused — sessions are not shared across keys, capabilities, config versions, or after close', async () => {
    const { sessions, connect } = twins();
    let version = 'v1';
    const pool = new BridgedSessionPool(connect, () => version);
    await (await pool.acquire(request('key1'))).recycle?.();
    await (await pool.acquire(request('key2'))).recycle?.();
    await (await pool.acquire(request('key1', { capabilities: { sampling: {} } }))).recycle?.();
    expect(sessions).toHaveLength(3);
    version = 'v2';
    await pool.acquire(request('key1'));
    expect(sessions).toHaveLength(4);
    pool.retain(new Map([['demo/legacy', 'v2']]));
    expect(sessions.slice(0, 3).map((s) => s.closed)).toEqual([1, 1, 1]);
    expect(pool.idle).toBe(0);
    const late = await pool.acquire(request('key1'));
    await pool.close();
    await late.recycle?.();
    expect(pool.idle).toBe(0);
    expect(sessions[4]?.closed).toBe(1);
  });

  it('attacker:bridged-sessions-reused — a few sessions per source are parked, for a short while; a dead one is never reused', async () => {
    vi.useFakeTimers();
    const { sessions, connect } = twins();
    const pool = new BridgedSessionPool(connect, () => 'v1', { perSource: 2, idleMs: 1000 });
    const leases = await Promise.all(['a', 'b', 'c'].map((key) => pool.acquire(request(key))));
    for (const lease of leases) await lease.recycle?.();
    expect(pool.idle).toBe(2);
    expect(sessions.map((s) => s.closed)).toEqual([1, 0, 0]);
    (sessions[1] as TwinSession).alive = false;
    await pool.acquire(request('b'));
    expect(sessions).toHaveLength(4);
    expect(sessions[1]?.closed).toBe(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(pool.idle).toBe(0);
    expect(sessions[2]?.closed).toBe(1);
  });

  it('attacker:bridged-sessions-reused — a parked session the upstream forgot (404) is replaced once, unnoticed by the call', async () => {
    const { sessions, connect } = twins();
    const pool = new BridgedSessionPool(connect, () => 'v1');
    await (await pool.acquire(request('key1'))).recycle?.();
    (sessions[0] as TwinSession).forgotten = true;
    const lease = await pool.acquire(request('key1'));
    expect(await lease.callTool('ask', {}, AbortSignal.timeout(1000), 1000)).toEqual({
      content: [{ type: 'text', text: 'session 2: accept' }],
    });
    expect(sessions[0]?.closed).toBe(1);
    // A new session's 404 is the upstream's answer, not a stale session: it reaches the caller.
    (sessions[1] as TwinSession).forgotten = true;
    await lease.close();
    const fresh = await pool.acquire(request('key2'));
    (sessions[2] as TwinSession).forgotten = true;
    await expect(fresh.callTool('ask', {}, AbortSignal.timeout(1000), 1000)).rejects.toBeInstanceOf(
      SdkHttpError,
    );
  });
});
