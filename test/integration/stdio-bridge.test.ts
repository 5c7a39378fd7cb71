// agw-bridge (issue 40): the static Go binary the operator puts in front of an unmodified stdio MCP
// server, built through image/bridge/build.sh and run here around the published server-everything.
// Checked through its HTTP face with the real v2 SDK client, raw HTTP, the process itself (its
// child killed), and the gateway fronting it as an ordinary streamable-http source.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { everythingStdioParams } from '../fixtures/upstreams/everything-server.js';
import { buildBridge, startBridge, type RunningBridge } from '../fixtures/upstreams/stdio-bridge.js';
import { httpSource, keyRecord, newKey } from '../support/gateway-document.js';
import { mcpPost, startHarness, type Harness } from '../support/gateway-harness.js';

const run = promisify(execFile);
const TOKEN = 'bridge-test-token-0123456789abcdef';
const stdio = everythingStdioParams();
const SERVER = [stdio.command, ...stdio.args];

let binary: string;
let bridge: RunningBridge;

beforeAll(async () => {
  binary = await buildBridge();
  bridge = await startBridge(binary, SERVER, {
    env: { AGW_BRIDGE_TOKEN: TOKEN, AGW_TEST_MARKER: 'passed-through' },
  });
}, 300_000);

afterAll(async () => {
  await bridge.stop();
});

async function connect(url: string, token: string, name: string): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' }, { versionNegotiation: { mode: 'auto' } });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(url), {
      requestInit: { headers: { authorization: `Bearer ${token}` } },
    }),
  );
  return client;
}

function textOf(result: unknown): string {
  const content = (result as { content?: { type: string; text?: string }[] }).content ?? [];
  return content.map((block) => block.text ?? '').join('');
}

describe('agw-bridge around server-everything (stdio)', () => {
  it('stdio-bridge:sdk-client — the v2 SDK client lists and calls tools, with progress', async () => {
    const client = await connect(bridge.url, TOKEN, 'first');
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toEqual(expect.arrayContaining(['echo', 'get-env']));
      expect(
        textOf(await client.callTool({ name: 'echo', arguments: { message: 'through the bridge' } })),
      ).toContain('through the bridge');
      const progress: number[] = [];
      const long = await client.callTool(
        { name: 'trigger-long-running-operation', arguments: { duration: 1, steps: 2 } },
        { onprogress: (p) => progress.push(p.progress) },
      );
      expect(textOf(long)).toContain('completed');
      expect(progress).toEqual([1, 2]);
      // No session: the bridge is stateless from HTTP's point of view.
      const raw = await fetch(bridge.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({ jsonrpc: '2.0', id: 'raw-1', method: 'tools/list' }),
      });
      expect(raw.headers.get('mcp-session-id')).toBeNull();
      expect(((await raw.json()) as { id: unknown }).id).toBe('raw-1');
    } finally {
      await client.close();
    }
  });

  it("stdio-bridge:initialize-cache — a second client's initialize comes from the cache; both work at once", async () => {
    const cachedBefore = bridge.lines.filter((line) => line.includes('answered from the cache')).length;
    const [a, b] = [
      await connect(bridge.url, TOKEN, 'replica-a'),
      await connect(bridge.url, TOKEN, 'replica-b'),
    ];
    try {
      expect(bridge.lines.filter((line) => line.includes('answered from the cache')).length).toBe(
        cachedBefore + 2,
      );
      expect(b.getServerVersion()).toEqual(a.getServerVersion());
      // Both SDK clients number their requests from the same start, so their ids collide.
      const calls = Array.from({ length: 8 }, (_, i) =>
        (i % 2 === 0 ? a : b).callTool({ name: 'echo', arguments: { message: `m-${i}` } }),
      );
      const answers = await Promise.all(calls);
      answers.forEach((answer, i) => expect(textOf(answer)).toContain(`m-${i}`));
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it("stdio-bridge:auth — no or a wrong token is 401 with no detail; the server's environment lacks the token", async () => {
    for (const authorization of [undefined, 'Bearer wrong-token-0123456789abcdef', `Basic ${TOKEN}`]) {
      const response = await fetch(bridge.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(authorization ? { authorization } : {}) },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(response.status).toBe(401);
      expect(await response.text()).toBe('');
    }
    await expect(connect(bridge.url, 'wrong-token-0123456789abcdef', 'intruder')).rejects.toThrow();
    expect((await fetch(`${bridge.origin}/healthz`)).status).toBe(200);
    const client = await connect(bridge.url, TOKEN, 'env-reader');
    try {
      const env = textOf(await client.callTool({ name: 'get-env', arguments: {} }));
      expect(env).toContain('passed-through');
      expect(env).not.toContain('AGW_BRIDGE_TOKEN');
      expect(env).not.toContain(TOKEN);
    } finally {
      await client.close();
    }
    expect(bridge.lines.join('\n')).not.toContain(TOKEN);
  });

  it('stdio-bridge:child-exit — a server that dies answers pending calls 502 and the bridge exits non-zero', async () => {
    const dying = await startBridge(binary, SERVER, { env: { AGW_BRIDGE_TOKEN: TOKEN } });
    try {
      const client = await connect(dying.url, TOKEN, 'before-death');
      await client.close();
      const pending = fetch(dying.url, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${TOKEN}`,
          'content-type': 'application/json',
          accept: 'application/json',
        },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 'long',
          method: 'tools/call',
          params: { name: 'trigger-long-running-operation', arguments: { duration: 60, steps: 2 } },
        }),
      });
      // The call is at the server (its one progress step takes 30 s) when the server is killed.
      await new Promise((resolve) => setTimeout(resolve, 500));
      process.kill(dying.childPid, 'SIGKILL');
      const response = await pending;
      expect(response.status).toBe(502);
      expect(((await response.json()) as { id: unknown }).id).toBe('long');
      expect(await dying.exited).not.toBe(0);
      expect(dying.lines.some((line) => line.includes('the server process exited'))).toBe(true);
    } finally {
      await dying.stop();
    }
  });

  it('stdio-bridge:sigterm-drain — SIGTERM: not ready at once, keep-alive ends, new calls still served for the drain delay, the in-flight call finishes, the server stops, exit 0', async () => {
    const draining = await startBridge(binary, SERVER, {
      env: { AGW_BRIDGE_TOKEN: TOKEN },
      flags: ['--drain-delay', '1500ms'],
    });
    try {
      const before = await fetch(draining.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 6, method: 'tools/list', params: {} }),
      });
      await before.body?.cancel();
      expect(before.headers.get('connection')).not.toBe('close');
      const inFlight = fetch(draining.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 7,
          method: 'tools/call',
          params: { name: 'trigger-long-running-operation', arguments: { duration: 2, steps: 2 } },
        }),
      });
      await new Promise((resolve) => setTimeout(resolve, 500));
      process.kill(draining.pid, 'SIGTERM');
      await new Promise((resolve) => setTimeout(resolve, 200));
      // Out of the Service's endpoints (readiness), yet a request sent meanwhile is answered: the
      // forwarding rules that still name the pod lag behind the signal.
      expect((await fetch(`${draining.origin}/readyz`)).status).toBe(503);
      const late = await fetch(draining.url, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 8, method: 'tools/list', params: {} }),
      });
      expect(late.status).toBe(200);
      // Keep-alive ends with the drain: the caller dials again (reaching a pod that stays).
      expect(late.headers.get('connection')).toBe('close');
      expect(JSON.stringify(await late.json())).toContain('"tools"');
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(JSON.stringify(await response.json())).toContain('completed');
      expect(await draining.exited).toBe(0);
      await expect(fetch(`${draining.origin}/healthz`)).rejects.toThrow();
      expect(() => process.kill(draining.childPid, 0)).toThrow();
    } finally {
      await draining.stop();
    }
  });

  it('stdio-bridge:go-unit-tests — go vet and go test pass in image/bridge', async () => {
    await run('go', ['vet', './...'], { cwd: 'image/bridge', timeout: 300_000 });
    const { stdout } = await run('go', ['test', './...'], { cwd: 'image/bridge', timeout: 300_000 });
    expect(stdout).toMatch(/^ok\s/m);
  }, 300_000);
});

describe('the gateway in front of agw-bridge', () => {
  let dir: string;
  let fronted: RunningBridge;
  let h: Harness;
  const key = newKey();

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'agw-bridge-'));
    const tokenFile = join(dir, 'token');
    await writeFile(tokenFile, `${TOKEN}\n`);
    fronted = await startBridge(binary, SERVER, { flags: ['--token-file', tokenFile] });
    h = await startHarness(
      {
        workspaces: [
          {
            name: 'demo',
            mcpSources: [
              httpSource('bridged', fronted.url, {
                credential: { type: 'bearer', secret: { env: 'BRIDGE_TOKEN' } },
              }),
            ],
            keys: [keyRecord(key, { access: 'write' })],
          },
        ],
      },
      { BRIDGE_TOKEN: TOKEN },
    );
  }, 60_000);

  afterAll(async () => {
    await h.stop();
    await fronted.stop();
    await rm(dir, { recursive: true, force: true });
  });

  it('stdio-bridge:gateway-source — a streamable-http source with a static bearer credential; tools/call goes through', async () => {
    const response = await mcpPost(h.url, key.key, {
      method: 'tools/call',
      params: { name: 'bridged__echo', arguments: { message: 'gateway to bridge to stdio' } },
    });
    const text = await response.text();
    expect(response.status).toBe(200);
    expect(text).toContain('gateway to bridge to stdio');
    // Era detection: the 2026 probe was relayed and refused by the 2025-era server, so the gateway
    // initialised as a 2025 client.
    const methods = fronted.lines
      .filter((line) => line.includes('"msg":"mcp"'))
      .map((line) => (JSON.parse(line) as { method?: string }).method);
    expect(methods.slice(0, 2)).toEqual(['server/discover', 'initialize']);
    expect(methods).toContain('tools/call');
  });
});
