// Audit records of OAuth callers (issue 29, docs/audit.md): a real authorization server
// (oidc-provider) issues client-credentials tokens; a call with a token for the gateway is recorded
// under the caller's issuer and subject, a token minted for another resource is a denied record
// with its reason, and neither token reaches the audit file.
import { readFile } from 'node:fs/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { freePort } from '../infra/free-port.js';
import { AuditRecordSchema, type AuditRecord } from '../../gateway/telemetry/audit-record.js';
import { demoSource } from '../support/gateway-document.js';
import { mcpPost, startWorkspace, type Harness } from '../support/gateway-harness.js';
import { findLeaks } from '../support/leak-scan.js';
import { until } from '../support/until.js';

let as: AuthServer;
let h: Harness;
let resource: string;
const presented: string[] = [];

async function clientCredentials(target: string): Promise<string> {
  const response = await fetch(`${as.issuer}/token`, {
    method: 'POST',
    headers: {
      'content-type': 'application/x-www-form-urlencoded',
      authorization: `Basic ${Buffer.from('machine:machine-secret-0123456789').toString('base64')}`,
    },
    body: new URLSearchParams({ grant_type: 'client_credentials', resource: target, scope: 'mcp:read' }),
  });
  const body = (await response.json()) as { access_token?: string };
  if (body.access_token === undefined) throw new Error(`no token: ${JSON.stringify(body)}`);
  presented.push(body.access_token);
  return body.access_token;
}

async function recordOf(response: Response): Promise<AuditRecord> {
  const id = response.headers.get('x-request-id');
  await response.arrayBuffer();
  return until(`the audit record of ${id}`, async () => {
    const text = await readFile(h.auditPath, 'utf8').catch(() => '');
    const lines = text.split('\n').filter((line) => line.includes(`"request_id":"${id}"`));
    return lines.length === 1 ? AuditRecordSchema.parse(JSON.parse(lines[0]!)) : undefined;
  });
}

beforeAll(async () => {
  const port = await freePort();
  const gatewayUrl = `http://127.0.0.1:${port}`;
  resource = `${gatewayUrl}/mcp`;
  as = await startAuthServer({
    resources: {
      [resource]: { scope: 'mcp:read mcp:write' },
      'https://other.example/mcp': { scope: 'mcp:read' },
    },
    clients: [
      {
        client_id: 'machine',
        client_secret: 'machine-secret-0123456789',
        grant_types: ['client_credentials'],
        redirect_uris: [],
        response_types: [],
      },
    ],
  });
  h = await startWorkspace(
    {
      name: 'machines',
      mcpSources: [demoSource('demo')],
      identity: {
        issuers: [{ issuer: as.issuer }],
        rules: [{ name: 'machine', issuer: as.issuer, when: [{ claim: 'client_id', equals: 'machine' }] }],
      },
    },
    {
      server: { host: '127.0.0.1', port, publicUrl: gatewayUrl },
      oauth: { defaultWorkspace: 'machines' },
    },
  );
}, 60_000);

afterAll(async () => {
  await h.stop();
  await as.stop();
});

describe('audit records of OAuth callers', () => {
  it('audit:oidc-principal — a token caller is recorded by issuer and subject; a token for another resource is denied with its reason', async () => {
    const token = await clientCredentials(resource);
    const allowed = await mcpPost(h.url, token, { id: 1, method: 'tools/list' });
    expect(allowed.status).toBe(200);
    const record = await recordOf(allowed);
    expect(record).toMatchObject({
      method: 'tools/list',
      workspace: 'machines',
      principal: { kind: 'oidc', issuer: as.issuer },
      decision: 'allowed',
      outcome: 'ok',
    });
    expect(record.principal?.kind === 'oidc' && record.principal.subject.length > 0).toBe(true);

    const elsewhere = await clientCredentials('https://other.example/mcp');
    const refused = await mcpPost(h.url, elsewhere, { id: 2, method: 'tools/list' });
    expect(refused.status).toBe(401);
    expect(await recordOf(refused)).toMatchObject({
      decision: 'denied',
      reason: 'credential_wrong_audience',
      outcome: 'proxy_authorization',
      status: 401,
    });

    const text = await readFile(h.auditPath, 'utf8');
    expect(
      findLeaks(
        [text],
        presented.map((value, i) => ({ label: `token ${i}`, value: value.slice(-40), windows: true })),
      ),
    ).toEqual([]);
  });
});
