// Secret masking in knowledge answers and the reach policy on hook URLs (issue 41 part 5), on one
// real gateway under a tenant policy: documents holding real-looking credentials, indexed by the
// files connector, come back masked from /agent/search, /agent/query and the MCP `search` and
// `get_document` tools, unless the workspace turned masking off; a hook on an address the policy
// denies is never connected to (the call fails closed, naming the hook), while a workspace the
// policy lets reach it is guarded through it.
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeCredentials, secretPart } from '../support/fake-credentials.js';
import { writeTree } from '../support/file-tree.js';
import { demoSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { getDocumentPage, rpcCall } from '../support/mcp-clients.js';
import { until } from '../support/until.js';

const [masked, plain, fenced, open] = newKeys(4);
const samples = fakeCredentials();
const SECRET_ENTRIES = Object.entries(samples) as [keyof typeof samples, string][];
let h: Harness;
let dir: string;
let hookServer: Server;
let hookPort = 0;
let hookConnections = 0;
const hookNames: string[] = [];

const RUNBOOK = [
  '# Deploy runbook for the pelican service',
  '',
  'The pelican deploy job reads these credentials from the vault; copies below are for recovery.',
  '',
  ...SECRET_ENTRIES.map(([kind, sample]) => `Recovery ${kind}: ${sample}\n`),
].join('\n');

async function startHookServer(): Promise<void> {
  hookServer = createServer((request, response) => {
    hookNames.push(String(request.headers['x-agw-hook']));
    request.resume();
    request.on('end', () => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end('{"decision":"allow"}');
    });
  });
  hookServer.on('connection', () => (hookConnections += 1));
  await new Promise<void>((resolve) => hookServer.listen(0, '127.0.0.1', resolve));
  const address = hookServer.address();
  hookPort = typeof address === 'object' && address !== null ? address.port : 0;
}

const guardedBy = (name: string) => ({
  guardrails: {
    hooks: [{ name, url: `http://127.0.0.1:${hookPort}/check`, secret: { env: 'HOOK_SECRET' } }],
  },
});

beforeAll(async () => {
  await startHookServer();
  dir = await mkdtemp(join(tmpdir(), 'agw-guardrail-masking-'));
  await writeTree(dir, { 'masked/runbook.md': RUNBOOK, 'plain/runbook.md': RUNBOOK });
  const files = (workspace: string) => [
    { name: 'runbooks', type: 'files', path: join(dir, workspace), watch: false },
  ];
  h = await startHarness(
    {
      knowledge: { sqlitePath: join(dir, 'index.sqlite') },
      policy: {
        stdio: 'allow',
        files: { allowedRoots: [join(dir, '{workspace}')] },
        // Loopback is denied to every tenant; `open` alone may reach the hook's address.
        network: { namespaces: { open: { cidrs: ['127.0.0.1/32'] } } },
      },
      workspaces: [
        { name: 'masked', dataSources: files('masked'), keys: [keyRecord(masked)] },
        {
          name: 'plain',
          dataSources: files('plain'),
          keys: [keyRecord(plain)],
          governance: { guardrails: { maskSecrets: false } },
        },
        {
          name: 'fenced',
          mcpSources: [demoSource('demo')],
          keys: [keyRecord(fenced)],
          governance: guardedBy('fenced-hook'),
        },
        {
          name: 'open',
          mcpSources: [demoSource('demo')],
          keys: [keyRecord(open)],
          governance: guardedBy('open-hook'),
        },
      ],
    },
    { HOOK_SECRET: 'hook-secret-value-for-the-reach-test' },
  );
  for (const key of [masked, plain])
    await until('the runbook to be indexed', async () => {
      const found = JSON.parse(await search(key.key, 'pelican deploy runbook')) as { count: number };
      return found.count > 0 ? true : undefined;
    });
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await new Promise<void>((resolve) => hookServer.close(() => resolve()));
  await rm(dir, { recursive: true, force: true });
});

async function post(path: string, key: string, body: unknown): Promise<string> {
  const response = await fetch(`${h.url}${path}`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return response.text();
}

function search(key: string, query: string): Promise<string> {
  return post('/agent/search', key, {
    query,
    limit: 10,
    options: { response_format: 'json', snippet_chars: 2000, group_by: 'chunk' },
  });
}

function expectMasked(text: string, where: string): void {
  for (const [kind, sample] of SECRET_ENTRIES) {
    expect(text, `${where}: ${kind}`).not.toContain(secretPart(kind, sample));
  }
  expect(text, where).toContain('[masked:');
}

describe('secret masking in knowledge', () => {
  it('guardrails:mask-knowledge-rest — /agent/search snippets and /agent/query answers are masked', async () => {
    const found = await search(masked.key, 'recovery credentials pelican');
    expect(found).toContain('Deploy runbook');
    expectMasked(found, '/agent/search');
    const answered = await post('/agent/query', masked.key, {
      query: 'recovery credentials for the pelican deploy',
      options: { response_format: 'json', snippet_chars: 2000 },
    });
    expectMasked(answered, '/agent/query');
  });

  it('guardrails:mask-knowledge-mcp — the MCP search and get_document tools return masked snippets and chunks', async () => {
    const searched = await rpcCall(h.url, masked.key, 'tools/call', {
      name: 'search',
      arguments: { query: 'recovery credentials pelican', snippet_chars: 2000, group_by: 'chunk' },
    });
    const text = JSON.stringify(searched.result);
    expectMasked(text, 'search');
    const docId = /"doc_id":"([^"]+)"/.exec(text)?.[1];
    expect(docId).toBeDefined();
    const page = await getDocumentPage(h.url, masked.key, docId);
    expectMasked(JSON.stringify(page), 'get_document');
  });

  it('guardrails:mask-off — a workspace with maskSecrets: false gets its documents as written', async () => {
    const found = await search(plain.key, 'recovery credentials pelican');
    expect(found).toContain(samples.aws_access_key_id);
    expect(found).not.toContain('[masked:');
  });
});

describe('hook URLs under the tenant reach policy', () => {
  it('guardrails:hook-reach-denied — a hook on a denied address is never connected to; the call fails closed naming the hook', async () => {
    const before = hookConnections;
    const answer = await rpcCall(h.url, fenced.key, 'tools/call', {
      name: 'demo__echo',
      arguments: { text: 'hello' },
    });
    expect(answer.error?.code).toBe(-31023);
    expect(answer.error?.message).toContain('The guardrail fenced-hook could not decide on demo__echo');
    expect(answer.error?.message).not.toContain('127.0.0.1');
    expect(hookNames).not.toContain('fenced-hook');
    expect(hookConnections).toBe(before);
    expect(
      h.logs.some((line) => line.includes('"reason":"not_allowed"') && line.includes('fenced-hook')),
    ).toBe(true);
  });

  it('guardrails:hook-reach-allowed — the workspace the policy lets reach the hook is guarded through it', async () => {
    const answer = await rpcCall(h.url, open.key, 'tools/call', {
      name: 'demo__echo',
      arguments: { text: 'hello' },
    });
    expect(JSON.stringify(answer.result)).toContain('hello');
    expect(hookNames).toContain('open-hook');
  });
});
