// Tools embedded when the gateway discovers them (issue 37), with the real all-MiniLM-L6-v2 (the test
// model server) and the real stdio demo upstream: the first find_tools after start is already hybrid,
// with no search before it; an embeddings endpoint that fails at discovery gives the honest lexical
// fallback (its reason, not `indexing`), and tool search turns hybrid again by itself once the
// endpoint is back (a timer retries the pass; no search is needed to start it).
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startEmbeddings, type RunningEmbeddings } from '../infra/embeddings-server.js';
import { demoSource, keyRecord, newKey } from '../support/gateway-document.js';
import { mcpPost, startHarness, type Harness } from '../support/gateway-harness.js';

const writer = newKey();
let model: RunningEmbeddings;

interface Found {
  retrieval?: { requested: string; used: string; fallback_reason: string | null; pending_vectors?: number };
  tools: { name: string; found_by?: string }[];
}

async function find(h: Harness, query: string): Promise<Found> {
  const response = await mcpPost(h.url, writer.key, {
    method: 'tools/call',
    params: { name: 'find_tools', arguments: { query } },
  });
  expect(response.status).toBe(200);
  const body = (await response.json()) as {
    result?: { structuredContent?: Found };
    error?: { message: string };
  };
  if (body.error !== undefined) throw new Error(body.error.message);
  return body.result?.structuredContent as Found;
}

/** The gateway's log lines (JSON) with this message for this workspace. */
function logged(h: Harness, message: string, workspace = 'tools'): Record<string, unknown>[] {
  return h.logs
    .map((line) => JSON.parse(line) as Record<string, unknown>)
    .filter((line) => line['msg'] === message && line['workspace'] === workspace);
}

/** Waits (bounded) for a log line; the assertions after it say what was wrong if it never comes. */
async function waitForLog(
  h: Harness,
  message: string,
  ms: number,
  match: (line: Record<string, unknown>) => boolean = () => true,
): Promise<void> {
  const deadline = Date.now() + ms;
  while (!logged(h, message).some(match) && Date.now() < deadline)
    await new Promise((resolve) => setTimeout(resolve, 50));
}

function workspaceWith(embeddingsUrl: string): Record<string, unknown> {
  return {
    knowledge: {
      embeddings: {
        baseUrl: `${embeddingsUrl}/v1`,
        model: model.model,
        queryTimeoutMs: 30_000,
        maxRetries: 0,
        timeoutMs: 120_000,
      },
    },
    workspaces: [
      {
        name: 'tools',
        toolDisclosure: 'search',
        mcpSources: [demoSource('demo')],
        keys: [keyRecord(writer, { access: 'write' })],
      },
    ],
  };
}

beforeAll(async () => {
  model = await startEmbeddings();
}, 120_000);

afterAll(async () => {
  await model?.stop();
});

describe('tools embedded at discovery', () => {
  it('tools:embedded-at-discovery — the first find_tools after start is hybrid, with no search before it', async () => {
    const h = await startHarness(workspaceWith(model.url));
    try {
      // The gateway discovers its sources when it becomes ready; nothing here asks it anything.
      await waitForLog(h, 'tool vectors ready', 30_000);
      expect(logged(h, 'source discovered').map((line) => line['status'])).toEqual(['ready']);
      const first = await find(h, 'what day and hour is it at the moment');
      expect(first.retrieval).toEqual({ requested: 'hybrid', used: 'hybrid', fallback_reason: null });
      // No word of the task is in the tool's name or description: meaning found it.
      expect(first.tools[0]).toMatchObject({ name: 'demo__current_time', found_by: 'semantic' });
    } finally {
      await h.stop();
    }
  }, 90_000);

  it('tools:embedding-down-at-discovery — a failing endpoint gives the lexical fallback with its reason, and search recovers by itself', async () => {
    // A real HTTP hop in front of the model server: 503 while `down`, else forwarded as is.
    let down = true;
    let refused = 0;
    const target = new URL(model.url);
    const proxy: Server = createServer((req, res) => {
      if (down) {
        refused += 1;
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: { message: 'model loading', type: 'server_error' } }));
        return;
      }
      const forward = httpRequest(
        { host: target.hostname, port: target.port, path: req.url, method: req.method, headers: req.headers },
        (upstream) => {
          res.writeHead(upstream.statusCode ?? 502, upstream.headers);
          upstream.pipe(res);
        },
      );
      forward.on('error', () => res.destroy());
      req.pipe(forward);
    });
    await new Promise<void>((resolve) => proxy.listen(0, '127.0.0.1', resolve));
    const proxyUrl = `http://127.0.0.1:${(proxy.address() as AddressInfo).port}`;
    const h = await startHarness(workspaceWith(proxyUrl));
    try {
      await waitForLog(h, 'tool embedding failed; tools rank by words until a retry succeeds', 30_000);
      expect(refused).toBeGreaterThan(0);
      const whileDown = await find(h, 'add two numbers together');
      // Honest: the endpoint's failure, not "indexing"; the tools still answer by words.
      expect(whileDown.retrieval).toMatchObject({
        requested: 'hybrid',
        used: 'lexical',
        fallback_reason: 'http_error',
      });
      expect(whileDown.tools[0]?.name).toBe('demo__add');
      down = false;
      // No search in between: the retry timer embeds the tools once the endpoint answers.
      await waitForLog(h, 'tool vectors ready', 30_000, (line) => line['recovered'] === true);
      const after = await find(h, 'what day and hour is it at the moment');
      expect(after.retrieval).toEqual({ requested: 'hybrid', used: 'hybrid', fallback_reason: null });
      expect(after.tools[0]).toMatchObject({ name: 'demo__current_time', found_by: 'semantic' });
    } finally {
      await h.stop();
      await new Promise((resolve) => proxy.close(resolve));
    }
  }, 90_000);
});
