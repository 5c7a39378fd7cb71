// Spec §5.7 / D15: every log line of a run with valid, invalid and revoked keys is captured, and
// none contains key material, an Authorization header value or a request body.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { get, startWorkspace, type Harness } from '../support/gateway-harness.js';

const [valid, writer, revoked, unknown] = newKeys(4);
const BODY_MARKER = 'body-marker-7d1f2c-should-never-be-logged';
let h: Harness;

beforeAll(async () => {
  h = await startWorkspace({
    mcpSources: [demoSource('demo', { env: { DEMO_TOKEN: { env: 'DEMO_TOKEN' } } })],
    keys: [keyRecord(valid), keyRecord(writer, { access: 'write' }), keyRecord(revoked, { revoked: true })],
  });
  const tampered = valid.key.slice(0, -2) + 'zz';
  const calls: Promise<Response>[] = [];
  for (const key of [valid.key, writer.key, revoked.key, unknown.key, tampered]) {
    for (const path of ['/agent/tools', '/agent/sources', '/agent/mcp/config', '/agent/nope'])
      calls.push(get(`${h.url}${path}`, key));
    calls.push(
      get(`${h.url}/agent/tools`, undefined, {
        authorization: `Basic ${Buffer.from(key).toString('base64')}`,
      }),
    );
    calls.push(
      fetch(`${h.url}/agent/sources/demo/refresh`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: JSON.stringify({ note: BODY_MARKER }),
      }),
    );
    calls.push(
      fetch(`${h.url}/mcp`, {
        method: 'POST',
        headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
        body: `{"x":"${BODY_MARKER}"`,
      }),
    );
  }
  const responses = await Promise.all(calls);
  await Promise.all(responses.map((r) => r.arrayBuffer()));
});
afterAll(async () => h.stop());

describe('logs never carry secrets or payloads', () => {
  it('logs:no-secrets — no key, key secret, header value, upstream secret or body appears in any line', () => {
    expect(h.logs.length).toBeGreaterThan(20);
    const all = h.logs.join('\n');
    for (const key of [valid, writer, revoked, unknown]) {
      // Any 8-character window of the key after its fixed prefix would be a partial leak.
      const material = key.key.slice('agw_'.length);
      const leaked = Array.from({ length: material.length - 7 }, (_, i) => material.slice(i, i + 8)).filter(
        (w) => all.includes(w),
      );
      expect(leaked).toEqual([]);
      expect(all.includes(key.key)).toBe(false);
      expect(all.includes(key.key.slice(`agw_${key.id}_`.length))).toBe(false);
      expect(all.includes(key.id)).toBe(false);
      expect(all.includes(Buffer.from(key.key).toString('base64'))).toBe(false);
      expect(all.includes(key.hash)).toBe(false);
    }
    expect(all.includes(BODY_MARKER)).toBe(false);
    expect(all.includes('demo-upstream-token-value')).toBe(false);
    expect(all.toLowerCase().includes('bearer ')).toBe(false);
  });

  it('logs:request-line — each request is logged with request id and status only', () => {
    const lines = h.logs
      .map((l) => JSON.parse(l) as Record<string, unknown>)
      .filter((l) => l['msg'] === 'request completed');
    expect(lines.length).toBeGreaterThanOrEqual(35);
    for (const line of lines) {
      expect(typeof line['reqId']).toBe('string');
      expect(typeof line['status']).toBe('number');
      expect(Object.keys(line).sort()).toEqual(
        expect.arrayContaining(['method', 'route', 'status', 'ms', 'reqId']),
      );
      expect(line).not.toHaveProperty('req');
      expect(line).not.toHaveProperty('headers');
    }
    const failures = h.logs.filter((l) => l.includes('authentication failed'));
    expect(failures.length).toBeGreaterThan(0);
    expect(
      failures.every((l) => /"reason":"(missing|not-bearer|malformed|unknown|revoked|expired)"/.test(l)),
    ).toBe(true);
  });
});
