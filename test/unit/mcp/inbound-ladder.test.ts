// The inbound ladder as pure functions (STYLE 6): the rungs added by issue 8 — strict UTF-8 and
// mirrored headers compared in both eras.
import { describe, expect, it } from 'vitest';
import { runLadder, type InboundHttp } from '../../../gateway/mcp/inbound-ladder.js';

const META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientCapabilities': {},
};

function inbound(body: unknown, headers: Partial<InboundHttp> = {}): InboundHttp {
  return {
    httpMethod: 'POST',
    contentType: 'application/json',
    protocolVersionHeader: undefined,
    methodHeader: undefined,
    nameHeader: undefined,
    body: typeof body === 'string' ? Buffer.from(body) : Buffer.from(JSON.stringify(body)),
    ...headers,
  };
}

const call = (name: string, meta?: object) => ({
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name, ...(meta === undefined ? {} : { _meta: meta }) },
});

function rejection(outcome: ReturnType<typeof runLadder>): number | undefined {
  return outcome.kind === 'reject' ? outcome.error.rpcCode : undefined;
}

describe('inbound ladder', () => {
  it('ladder:invalid-utf8 — invalid UTF-8 is a parse error, a BOM and valid multi-byte text are fine', () => {
    const bad = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","params":{"x":"'),
      Buffer.from([0xed, 0xa0, 0x80]),
      Buffer.from('"}}'),
    ]);
    expect(rejection(runLadder({ ...inbound(''), body: bad }))).toBe(-32700);
    const bom = Buffer.concat([
      Buffer.from([0xef, 0xbb, 0xbf]),
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping"}'),
    ]);
    expect(runLadder({ ...inbound(''), body: bom }).kind).toBe('request');
    expect(
      runLadder(inbound({ jsonrpc: '2.0', id: 1, method: 'ping', params: { x: 'Grüße 🌍' } })).kind,
    ).toBe('request');
  });

  it('mcp:mirror-every-era — present headers must mirror the body on the 2025 face; absent ones are fine there', () => {
    const legacy = { protocolVersionHeader: '2025-06-18' };
    expect(rejection(runLadder(inbound(call('x__write'), { ...legacy, methodHeader: 'tools/list' })))).toBe(
      -32020,
    );
    expect(rejection(runLadder(inbound(call('x__write'), { ...legacy, nameHeader: 'x__echo' })))).toBe(
      -32020,
    );
    expect(rejection(runLadder(inbound(call('x__write'), { nameHeader: 'x__echo' })))).toBe(-32020);
    const list = { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} };
    expect(rejection(runLadder(inbound(list, { ...legacy, nameHeader: 'x__echo' })))).toBe(-32020);
    expect(runLadder(inbound(call('x__write'), legacy)).kind).toBe('request');
    const honest = { ...legacy, methodHeader: 'tools/call', nameHeader: '=?base64?eF9fd3JpdGU=?=' };
    expect(runLadder(inbound(call('x__write'), honest)).kind).toBe('request');
  });

  it('ladder:name-mismatch — the modern face still requires the headers', () => {
    const modern = { protocolVersionHeader: '2026-07-28' };
    expect(rejection(runLadder(inbound(call('x__a', META), { ...modern, methodHeader: 'tools/call' })))).toBe(
      -32020,
    );
    expect(rejection(runLadder(inbound(call('x__a', META), { ...modern, nameHeader: 'x__a' })))).toBe(-32020);
    expect(
      runLadder(inbound(call('x__a', META), { ...modern, methodHeader: 'tools/call', nameHeader: 'x__a' }))
        .kind,
    ).toBe('request');
  });

  it('attacker:exact-ids — ids that JSON numbers cannot hold exactly are refused with id null; exact ones pass', () => {
    for (const text of [
      '123456789012345678901234567890',
      '9007199254741925',
      '1.0',
      '1e3',
      '0.30000000000000001',
    ]) {
      const outcome = runLadder(inbound(`{"jsonrpc":"2.0","id":${text},"method":"ping"}`));
      expect(outcome.kind, text).toBe('reject');
      if (outcome.kind === 'reject') {
        expect(outcome.id, text).toBeNull();
        expect(outcome.error.rpcCode).toBe(-32600);
      }
    }
    for (const text of ['9007199254740991', '-42', '0', '1.5', '"9007199254741925"']) {
      const outcome = runLadder(inbound(`{"jsonrpc":"2.0","id":${text},"method":"ping"}`));
      expect(outcome.kind, text).toBe('request');
      if (outcome.kind === 'request') expect(JSON.stringify(outcome.message.id)).toBe(text);
    }
  });

  it('attacker:argument-depth — params nested past the limit are invalid params with the request id; at the limit they pass', () => {
    const nest = (levels: number): unknown => {
      let value: unknown = 'leaf';
      for (let i = 0; i < levels; i += 1) value = i % 2 === 0 ? { a: value } : [value];
      return value;
    };
    // params is level 1 and the outermost argument container level 2: 63 containers reach 64.
    const atLimit = runLadder(
      inbound({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x', arguments: nest(63) } }),
    );
    expect(atLimit.kind).toBe('request');
    const deep = runLadder(
      inbound({ jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'x', arguments: nest(64) } }),
    );
    expect(deep.kind).toBe('reject');
    if (deep.kind === 'reject') {
      expect(deep.id).toBe(7);
      expect(deep.error.rpcCode).toBe(-32602);
      expect(deep.error.errorClass).toBe('request');
    }
    const huge = runLadder(
      inbound(
        `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"x","arguments":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
      ),
    );
    expect(huge.kind === 'reject' ? huge.error.rpcCode : undefined).toBe(-32602);
    // A plain body (no backslash, one key "id"): its id's text is read without a second parse, so
    // the refusal echoes it.
    expect(huge.kind === 'reject' ? huge.id : 'not refused').toBe(8);
    const escaped = runLadder(
      inbound(
        `{"jsonrpc":"2.0","id":8,"method":"tools/call","params":{"name":"x\\u0041","arguments":${'['.repeat(5000)}${']'.repeat(5000)}}}`,
      ),
    );
    expect(escaped.kind === 'reject' ? escaped.error.rpcCode : undefined).toBe(-32602);
    // Too deep to read the id's text back the full way: refused without echoing an id it cannot
    // vouch for.
    expect(escaped.kind === 'reject' ? escaped.id : 'not refused').toBeNull();
  });

  it('ladder:client-response — a JSON-RPC response is classified by era, never dispatched as a request', () => {
    const answer = { jsonrpc: '2.0', id: 'agwb1.x.y', result: { action: 'accept' } };
    const legacy = runLadder(inbound(answer, { protocolVersionHeader: '2025-11-25' }));
    expect(legacy).toEqual({
      kind: 'response',
      era: 'legacy',
      response: { id: 'agwb1.x.y', result: { action: 'accept' } },
    });
    const modern = runLadder(
      inbound(
        { ...answer, result: undefined, error: { code: -32601, message: 'no' } },
        { protocolVersionHeader: '2026-07-28' },
      ),
    );
    expect(modern.kind === 'response' ? modern.era : modern.kind).toBe('modern');
    // A message with a method and a result is neither; an unsupported version header is still refused.
    expect(rejection(runLadder(inbound({ ...answer, method: 'ping' })))).toBe(-32600);
    expect(rejection(runLadder(inbound(answer, { protocolVersionHeader: '1999-01-01' })))).toBe(-32022);
  });
});
