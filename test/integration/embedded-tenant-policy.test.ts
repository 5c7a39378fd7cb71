// The tenant reach policy in the embedded file (issue 20): with no `policy:` block nothing is
// bounded (the file's author is the admin; other integration tests rely on loopback upstreams and
// relative paths); with one, the same bounds apply as in the cluster: a files source outside its
// roots and an http source, an MCP source or an embeddings endpoint on a denied address are refused
// where they are opened, and a listener on the denied address proves that nothing connected.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyRecord, newKey } from '../support/gateway-document.js';
import { get, mcpPost, startWorkspace, type Harness } from '../support/gateway-harness.js';
import { until } from '../support/until.js';

const REST_DOCUMENT = {
  openapi: '3.0.3',
  info: { title: 'items', version: '1' },
  paths: { '/items': { get: { operationId: 'listItems', responses: { '200': { description: 'ok' } } } } },
};

let harness: Harness;
let wire: Server;
let connections = 0;
let root: string;
let outside: string;
const key = newKey();

beforeAll(async () => {
  wire = createServer((socket) => {
    connections += 1;
    socket.destroy();
  });
  await new Promise<void>((resolve) => wire.listen(0, '127.0.0.1', () => resolve()));
  const address = wire.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  root = await mkdtemp(join(tmpdir(), 'agw-embedded-roots-'));
  outside = await mkdtemp(join(tmpdir(), 'agw-embedded-outside-'));
  await mkdir(join(root, 'acme'));
  await writeFile(join(root, 'acme', 'ok.md'), '# OK\n\nThe bittern index is rebuilt nightly.\n');
  await writeFile(join(outside, 'secret.md'), '# Secret\n\nquokka-credential-material\n');
  await writeFile(join(outside, 'openapi.json'), JSON.stringify(REST_DOCUMENT));
  harness = await startWorkspace(
    {
      name: 'acme',
      keys: [keyRecord(key)],
      // The workspace's own embeddings endpoint is an address it names, like its connectors'.
      embeddings: { baseUrl: `http://127.0.0.1:${port}/v1`, model: 'any-model', maxRetries: 0 },
      mcpSources: [
        { name: 'loop', transport: 'streamable-http', url: `http://127.0.0.1:${port}/mcp` },
        // OpenAPI sources (issue 44): the document URL, the calls and a file path are all bounded.
        {
          name: 'restdoc',
          transport: 'openapi',
          openapi: { document: { url: `http://127.0.0.1:${port}/openapi.json` } },
        },
        {
          name: 'restcalls',
          transport: 'openapi',
          url: `http://127.0.0.1:${port}/v1`,
          openapi: { document: { inline: JSON.stringify(REST_DOCUMENT) } },
        },
        {
          name: 'restpath',
          transport: 'openapi',
          url: 'https://api.example.com/v1',
          openapi: { document: { path: join(outside, 'openapi.json') } },
        },
      ],
      dataSources: [
        { name: 'inside', type: 'files', path: join(root, 'acme'), watch: false },
        { name: 'outside', type: 'files', path: outside, watch: false },
        {
          name: 'api',
          type: 'http',
          url: `http://localhost:${port}/items`,
          fields: { id: 'id', title: 'title', body: 'body' },
        },
      ],
    },
    {
      policy: { files: { allowedRoots: [join(root, '{workspace}')] } },
    },
  );
});

afterAll(async () => {
  await harness?.stop();
  await new Promise<void>((resolve) => wire.close(() => resolve()));
  await rm(root, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

interface SourceRecord {
  id: string;
  last_error: string | null;
  error_code: string | null;
  embedding_status?: string | null;
  embedding_error?: string | null;
}

async function sources(): Promise<SourceRecord[]> {
  const response = await get(`${harness.url}/agent/sources`, key.key, { accept: 'application/json' });
  return ((await response.json()) as { sources: SourceRecord[] }).sources;
}

describe('embedded gateway with a policy block', () => {
  it('tenant:embedded-policy — bounds files and network targets the same way, and nothing connects', async () => {
    const errors = await until('both refused syncs to report', async () => {
      const list = await sources();
      const outsideError = list.find((s) => s.id === 'outside')?.last_error;
      const apiError = list.find((s) => s.id === 'api')?.last_error;
      return outsideError && apiError ? { outsideError, apiError } : undefined;
    });
    expect(errors.outsideError).toMatch(/outside every allowed root/);
    expect(errors.apiError).toMatch(
      /localhost is not allowed by the gateway's tenant policy: a loopback address/,
    );
    const listed = await mcpPost(harness.url, key.key, { method: 'tools/list' });
    expect(listed.status).toBe(200);
    const loop = await until('the MCP source to be refused', async () => {
      const found = (await sources()).find((s) => s.id === 'loop');
      return found?.error_code === 'upstream_not_allowed' ? found : undefined;
    });
    expect(loop.error_code).toBe('upstream_not_allowed');
    const search = await fetch(`${harness.url}/agent/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'bittern quokka', options: { response_format: 'json' } }),
    });
    const text = await search.text();
    expect(text).toContain('bittern');
    expect(text).not.toContain('quokka-credential-material');
    expect(connections).toBe(0);
  });

  it('tenant:embedded-openapi — OpenAPI sources under the policy: a document URL and every call on a denied address are refused, a document path is not read, and nothing connects', async () => {
    const refused = await until('the document URL to be refused', async () => {
      const found = (await sources()).find((s) => s.id === 'restdoc');
      return found?.error_code === 'upstream_not_allowed' ? found : undefined;
    });
    expect(refused.error_code).toBe('upstream_not_allowed');
    const pathSource = await until('the document path to be refused', async () => {
      const found = (await sources()).find((s) => s.id === 'restpath');
      return found?.last_error !== null && found?.last_error !== undefined ? found : undefined;
    });
    expect(pathSource.last_error).toMatch(
      /OpenAPI document refused: a document path is not read under a tenant reach policy/,
    );
    // The inline document lists without the network; a call is refused at the address.
    const call = await mcpPost(harness.url, key.key, {
      method: 'tools/call',
      params: { name: 'restcalls__listItems', arguments: {} },
    });
    const body = (await call.json()) as { error?: { data?: { code?: string } } };
    expect(body.error?.data?.code).toBe('upstream_not_allowed');
    expect(connections).toBe(0);
  });

  it('tenant:embedded-embeddings-refused — a workspace embeddings endpoint on a denied address: nothing sent, search answers by words and says why', async () => {
    const inside = await until('the embedding pass to be refused', async () => {
      const found = (await sources()).find((s) => s.id === 'inside');
      return found?.embedding_status === 'failed' ? found : undefined;
    });
    expect(inside.embedding_error).toContain('not_allowed');
    const search = await fetch(`${harness.url}/agent/search`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
      body: JSON.stringify({ query: 'bittern index', options: { response_format: 'json' } }),
    });
    const body = (await search.json()) as {
      retrieval: { requested: string; used: string; fallback_reason: string | null };
      results: { snippet: string }[];
    };
    expect(body.retrieval).toEqual({ requested: 'hybrid', used: 'lexical', fallback_reason: 'not_allowed' });
    expect(body.results[0]?.snippet).toContain('bittern');
    expect(connections).toBe(0);
  });
});
