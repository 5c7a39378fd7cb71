// Who picks a request's id (issue 37.7, docs/audit.md): the gateway mints a fresh one for every
// request — the audit record's `request_id`, the log's `reqId`, the `X-Request-Id` response header
// and an error body's `requestId` — whatever the caller sends. A caller's own `X-Request-Id` is kept
// beside it, as `client_request_id` in the audit record and `clientRequestId` in the log line, only
// when it is a short token (≤ 128 of A–Z a–z 0–9 . _ : -); anything else is dropped.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import type { AuditRecord } from '../../gateway/telemetry/audit-record.js';
import { demoSource, keyRecord, newKey } from '../support/gateway-document.js';
import { get, mcpPost, startWorkspace, fileHarness } from '../support/gateway-harness.js';
import { auditRecords } from '../support/audit-records.js';
import { until } from '../support/until.js';
import { gatewayPort, rawExchange } from '../support/raw-http.js';

const key = newKey();

const h = fileHarness(() => startWorkspace({ mcpSources: [demoSource('demo')], keys: [keyRecord(key)] }));

const records = () => auditRecords(h.auditPath);

async function recordOf(response: Response): Promise<AuditRecord> {
  const id = response.headers.get('x-request-id') ?? '';
  return until(`the audit record of ${id}`, async () => (await records()).find((r) => r.request_id === id));
}

async function logLineOf(response: Response): Promise<Record<string, unknown>> {
  const id = response.headers.get('x-request-id') ?? '';
  return until(`the log line of ${id}`, async () =>
    Promise.resolve(
      h.logs
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .find((line) => line['reqId'] === id && line['msg'] === 'request completed'),
    ),
  );
}

describe('request ids', () => {
  it('audit:gateway-request-id — two requests with the same X-Request-Id get two distinct gateway ids; the caller’s id is kept in its own field', async () => {
    const sent = 'client-chosen.id:42';
    const first = await get(`${h.url}/agent/tools`, key.key, { 'x-request-id': sent });
    const second = await mcpPost(h.url, key.key, { id: 1, method: 'tools/list' }, { 'x-request-id': sent });
    expect(first.status).toBe(200);
    expect(second.status).toBe(200);
    const ids = [first.headers.get('x-request-id'), second.headers.get('x-request-id')];
    expect(ids[0]).not.toBe(sent);
    expect(ids[1]).not.toBe(sent);
    expect(ids[0]).not.toBe(ids[1]);
    const [a, b] = [await recordOf(first), await recordOf(second)];
    expect([a.request_id, b.request_id]).toEqual(ids);
    expect(a.client_request_id).toBe(sent);
    expect(b.client_request_id).toBe(sent);
    expect((await records()).filter((r) => r.request_id === sent)).toEqual([]);
    // The log line: the gateway's id as reqId, the caller's beside it.
    expect((await logLineOf(first))['clientRequestId']).toBe(sent);
    // An error body names the gateway's id too.
    const refused = await get(`${h.url}/agent/tools`, undefined, { 'x-request-id': sent });
    const body = (await refused.json()) as { error: { requestId: string } };
    expect(body.error.requestId).toBe(refused.headers.get('x-request-id'));
    expect(body.error.requestId).not.toBe(sent);
    expect((await recordOf(refused)).client_request_id).toBe(sent);
  });

  it('audit:client-request-id-bounded — a caller id too long, with control or other characters, is not kept anywhere', async () => {
    const hostile = ['x'.repeat(129), 'tab\tid', 'has space', 'quote"brace{', '\u2028forged', 'é-accent'];
    for (const value of hostile) {
      const response = /^[\u0020-\u007e]*$/.test(value)
        ? await get(`${h.url}/agent/tools`, key.key, { 'x-request-id': value })
        : await rawGet(value);
      expect(response.status, JSON.stringify(value)).toBe(200);
      const record = await recordOf(response);
      expect(record.client_request_id, JSON.stringify(value)).toBeUndefined();
      expect(record.request_id).toMatch(/^[0-9a-f-]{36}$/);
      expect((await logLineOf(response))['clientRequestId']).toBeUndefined();
    }
    const text = await readFile(h.auditPath, 'utf8');
    expect(text).not.toContain('x'.repeat(129));
    expect(text).not.toContain('forged');
  });
});

/** GET /agent/tools with an X-Request-Id written as raw bytes (fetch refuses tabs and non-Latin-1
 * characters in a header; Node's parser accepts a tab and bytes above 0x7f in a value). */
async function rawGet(requestId: string): Promise<Response> {
  const exchange = await rawExchange(
    gatewayPort(h.url),
    `GET /agent/tools HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key.key}\r\nX-Request-Id: ${requestId}\r\nConnection: close\r\n\r\n`,
  );
  const id = /\r\nx-request-id: ([^\r]*)\r\n/i.exec(exchange.text)?.[1] ?? '';
  return new Response(null, { status: exchange.status ?? 0, headers: { 'x-request-id': id } });
}
