// Issue 8, "lock it in": property-based requests against a real gateway and a real 2026 upstream that
// records what it receives. Requests vary the protocol era, the key, every mirrored header (honest,
// lying, absent, Base64-sentinel), the path spelling, the Origin and the body encoding. Two
// properties must hold for every one: the gateway never answers 5xx, and a request that is
// mismatched, unauthenticated, unauthorised or malformed never reaches the upstream.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { httpSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { MODERN_META, startWorkspace, fileHarness } from '../support/gateway-harness.js';
import { gatewayPort, rawExchange } from '../support/raw-http.js';

const [reader, writer] = newKeys(2);
let modern: RunningModernServer;

const h = fileHarness(
  async () => {
    modern = await startModernServer();
    return startWorkspace({
      name: 'fuzz',
      mcpSources: [httpSource('up', modern.url)],
      keys: [keyRecord(reader), keyRecord(writer, { access: 'write' })],
    });
  },
  () => modern.close(),
);

const TOOLS = {
  up__echo: { args: { text: 'hello' }, needsWrite: false, region: false },
  up__write_thing: { args: { thing: 'x' }, needsWrite: true, region: false },
  up__regional_lookup: { args: { region: 'eu-west' }, needsWrite: false, region: true },
  up__missing: { args: {}, needsWrite: false, region: false },
} as const;
type ToolName = keyof typeof TOOLS;

type Mirror = 'honest' | 'base64' | 'lying' | 'absent';
interface Case {
  era: 'modern' | 'modern-version-mismatch' | 'legacy-2025-06-18' | 'legacy-no-version';
  key: 'reader' | 'writer' | 'none' | 'garbage';
  tool: ToolName;
  methodHeader: Mirror;
  nameHeader: Mirror;
  regionHeader: Mirror;
  path: '/mcp' | '/%6dcp' | '/%6D%63%70' | '/mcp/' | '/MCP' | '/mcp%00';
  origin: 'none' | 'loopback' | 'foreign';
  encoding: 'json' | 'invalid-utf8' | 'lone-surrogate' | 'bom';
}

/** Picks from weighted values, so that valid requests are common enough to exercise forwarding. */
function weighted<T>(...choices: [T, number][]): fc.Arbitrary<T> {
  return fc.oneof(...choices.map(([value, weight]) => ({ arbitrary: fc.constant(value), weight })));
}

const mirror = weighted<Mirror>(['honest', 4], ['base64', 2], ['lying', 1], ['absent', 2]);
const caseArb: fc.Arbitrary<Case> = fc.record({
  era: weighted<Case['era']>(
    ['modern', 3],
    ['modern-version-mismatch', 1],
    ['legacy-2025-06-18', 2],
    ['legacy-no-version', 2],
  ),
  key: weighted<Case['key']>(['reader', 3], ['writer', 3], ['none', 1], ['garbage', 1]),
  tool: fc.constantFrom(...(Object.keys(TOOLS) as ToolName[])),
  methodHeader: mirror,
  nameHeader: mirror,
  regionHeader: mirror,
  path: weighted<Case['path']>(
    ['/mcp', 6],
    ['/%6dcp', 2],
    ['/%6D%63%70', 1],
    ['/mcp/', 1],
    ['/MCP', 1],
    ['/mcp%00', 1],
  ),
  origin: weighted<Case['origin']>(['none', 6], ['loopback', 2], ['foreign', 1]),
  encoding: weighted<Case['encoding']>(['json', 6], ['invalid-utf8', 1], ['lone-surrogate', 1], ['bom', 1]),
});

const b64 = (value: string) => `=?base64?${Buffer.from(value).toString('base64')}?=`;
function mirrored(kind: Mirror, honest: string, lie: string): string | undefined {
  if (kind === 'absent') return undefined;
  if (kind === 'honest') return honest;
  return kind === 'base64' ? b64(honest) : lie;
}

function buildRequest(c: Case): { path: string; headers: Record<string, string>; body: Uint8Array } {
  const tool = TOOLS[c.tool];
  const modern = c.era.startsWith('modern');
  const params: Record<string, unknown> = { name: c.tool, arguments: { ...tool.args }, note: 'n-o-t-e' };
  if (modern) params['_meta'] = MODERN_META;
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
  };
  if (c.era === 'modern') headers['mcp-protocol-version'] = '2026-07-28';
  if (c.era === 'modern-version-mismatch') headers['mcp-protocol-version'] = '2025-06-18';
  if (c.era === 'legacy-2025-06-18') headers['mcp-protocol-version'] = '2025-06-18';
  const method = mirrored(c.methodHeader, 'tools/call', 'tools/list');
  if (method !== undefined) headers['mcp-method'] = method;
  const name = mirrored(c.nameHeader, c.tool, 'up__echo' === c.tool ? 'up__write_thing' : 'up__echo');
  if (name !== undefined) headers['mcp-name'] = name;
  const region = mirrored(c.regionHeader, 'eu-west', 'us-east');
  if (region !== undefined) headers['mcp-param-region'] = region;
  if (c.key === 'reader') headers['authorization'] = `Bearer ${reader.key}`;
  if (c.key === 'writer') headers['authorization'] = `Bearer ${writer.key}`;
  if (c.key === 'garbage') headers['authorization'] = `Bearer ${reader.key.slice(0, -3)}abc`;
  if (c.origin === 'loopback') headers['origin'] = 'http://127.0.0.1:3000';
  if (c.origin === 'foreign') headers['origin'] = 'https://evil.example';
  let text = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params });
  if (c.encoding === 'lone-surrogate') text = text.replace('"hello"', '"he\\ud800llo"');
  let body = Buffer.from(text, 'utf8');
  if (c.encoding === 'bom') body = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), body]);
  if (c.encoding === 'invalid-utf8') {
    // Inside a string value that nothing else checks, so only the UTF-8 rule can refuse it.
    const at = body.indexOf('n-o-t-e');
    body = Buffer.concat([body.subarray(0, at), Buffer.from([0xc3, 0x28]), body.subarray(at)]);
  }
  return { path: c.path, headers, body: new Uint8Array(body) };
}

/** Whether the gateway may forward this request upstream at all (the oracle). */
function mayReachUpstream(c: Case): boolean {
  const tool = TOOLS[c.tool];
  const modern = c.era === 'modern';
  if (c.era === 'modern-version-mismatch') return false;
  if (c.key === 'none' || c.key === 'garbage') return false;
  if (c.origin === 'foreign') return false;
  if (!['/mcp', '/%6dcp', '/%6D%63%70'].includes(c.path)) return false;
  if (c.encoding === 'invalid-utf8') return false;
  // Mcp-Method is compared literally; only Mcp-Name and Mcp-Param-* values may use the Base64 sentinel.
  if (c.methodHeader === 'lying' || c.methodHeader === 'base64' || c.nameHeader === 'lying') return false;
  if (modern && (c.methodHeader === 'absent' || c.nameHeader === 'absent')) return false;
  if (c.tool === 'up__missing') return false;
  if (tool.needsWrite && c.key !== 'writer') return false;
  if (tool.region) {
    if (c.regionHeader === 'lying') return false;
    if (modern && c.regionHeader === 'absent') return false;
  } else if (c.regionHeader !== 'absent') {
    // An Mcp-Param-Region for a tool without the annotation is forwarded, not checked (intermediaries
    // must pass unknown Mcp-Param-* headers on), so it does not decide anything here.
  }
  return true;
}

const calls = () => modern.log.filter((entry) => entry.rpcMethod === 'tools/call');

describe('MCP request fuzzing against a recording upstream', () => {
  it('mcp:fuzz-no-5xx-no-leak — no 5xx, nothing mismatched or unauthorised reaches the upstream, and every valid call does', async () => {
    let forwarded = 0;
    let refused = 0;
    await fc.assert(
      fc.asyncProperty(caseArb, async (c) => {
        const request = buildRequest(c);
        const before = calls().length;
        const response = await fetch(`${h.url}${request.path}`, {
          method: 'POST',
          headers: request.headers,
          body: request.body,
        });
        await response.arrayBuffer();
        expect(response.status, JSON.stringify(c)).toBeLessThan(500);
        const arrived = calls().slice(before);
        if (!mayReachUpstream(c)) {
          expect(arrived, JSON.stringify(c)).toEqual([]);
          refused += 1;
          return;
        }
        // Exactly the authorised call arrived, under the upstream's own name.
        for (const entry of arrived) expect(entry.name).toBe(c.tool.slice('up__'.length));
        expect(arrived.length, JSON.stringify(c)).toBe(1);
        forwarded += 1;
      }),
      { numRuns: 1500, seed: Number(process.env['FUZZ_SEED'] ?? 20261122) },
    );
    // Both outcomes occurred, so neither property held vacuously.
    expect(forwarded).toBeGreaterThan(50);
    expect(refused).toBeGreaterThan(500);
    expect(h.logs.filter((line) => (JSON.parse(line) as { level: number }).level >= 50)).toEqual([]);
  });

  it('attacker:fuzz-edge — unknown methods, ids beyond 2^53, duplicate headers and deep nesting: no 5xx, no silent close, no changed id', async () => {
    const edge = fc.record({
      method: weighted<string>(
        ['POST', 6],
        ['QUERY', 1],
        ['OPTIONS', 1],
        ['PUT', 1],
        ['PROPFIND', 1],
        ['M-SEARCH', 1],
        ['CONNECT', 1],
        ['TRACE', 1],
      ),
      id: fc.oneof(
        fc.integer({ min: -1000, max: 1000 }).map(String),
        fc.constantFrom(
          '9007199254740991',
          '9007199254740993',
          '9007199254741925',
          '123456789012345678901234567890',
          '1.5',
          '1e3',
          '-0',
          '"s-1"',
          '"9007199254741925"',
        ),
        fc.bigInt({ min: 2n ** 53n, max: 2n ** 80n }).map(String),
      ),
      duplicate: weighted<'none' | 'authorization' | 'host'>(['none', 4], ['authorization', 1], ['host', 1]),
      depth: weighted<number>([1, 4], [64, 1], [65, 1], [5000, 1]),
    });
    let answeredWithId = 0;
    await fc.assert(
      fc.asyncProperty(edge, async (c) => {
        const before = calls().length;
        const args = `${'['.repeat(c.depth - 1)}"hello"${']'.repeat(c.depth - 1)}`;
        const body = `{"jsonrpc":"2.0","id":${c.id},"method":"tools/call","params":{"name":"up__echo","arguments":{"text":${args}},"_meta":${JSON.stringify(MODERN_META)}}}`;
        const head = [
          `${c.method} ${c.method === 'CONNECT' ? '127.0.0.1:443' : '/mcp'} HTTP/1.1`,
          'Host: 127.0.0.1',
          ...(c.duplicate === 'host' ? ['Host: other.example'] : []),
          `Authorization: Bearer ${reader.key}`,
          ...(c.duplicate === 'authorization' ? [`Authorization: Bearer ${writer.key}`] : []),
          'Content-Type: application/json',
          'Accept: application/json, text/event-stream',
          'MCP-Protocol-Version: 2026-07-28',
          'Mcp-Method: tools/call',
          'Mcp-Name: up__echo',
          `Content-Length: ${Buffer.byteLength(body)}`,
          'Connection: close',
        ].join('\r\n');
        const exchange = await rawExchange(gatewayPort(h.url), `${head}\r\n\r\n${body}`);
        const where = JSON.stringify(c);
        // No silent close: every request gets a status line; and never a 5xx.
        expect(exchange.status, where).toBeDefined();
        expect(exchange.status as number, where).toBeLessThan(500);
        const payload = exchange.text.slice(exchange.text.indexOf('\r\n\r\n') + 4);
        const echoed = /^\{"jsonrpc":"2\.0","id":("(?:[^"\\]|\\.)*"|[-0-9.eE+]+|null)/.exec(payload)?.[1];
        if (echoed !== undefined && echoed !== 'null') {
          // Never a different id: exactly the text sent, or null.
          expect(echoed, where).toBe(c.id);
          answeredWithId += 1;
        }
        // Only a well-formed, single-header, shallow POST may reach the upstream.
        if (c.method !== 'POST' || c.duplicate !== 'none' || c.depth > 63)
          expect(calls().length, where).toBe(before);
      }),
      { numRuns: 400, seed: Number(process.env['FUZZ_SEED'] ?? 20261124) },
    );
    expect(answeredWithId).toBeGreaterThan(30);
  });
});
