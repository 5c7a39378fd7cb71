// Runs the published MCP conformance suite (server scenarios) against the gateway's real /mcp endpoint,
// through a loopback proxy that adds the API key (the runner cannot). The upstream serving the suite's
// own fixtures is the repo's conformance fixture server (proven against the suite directly by
// conformance-fixture.test.ts) under `prefix: never`, so the scenarios' names reach it unchanged;
// the demo server sits beside it under the default `always` policy. The suite runs twice: as its client
// negotiates (2025-11-25) and with every initialize pinned to 2025-06-18 by the proxy. Passes only when
// every failure is in the baseline file (test/conformance/expected-failures.yaml, each with its
// reason) and no baseline entry now passes.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthProxy, type AuthProxy } from '../conformance/auth-proxy.js';
import { conformanceStdioParams } from '../fixtures/upstreams/conformance-server.js';
import { demoSource, keyRecord, newKey } from '../support/gateway-document.js';
import { startWorkspace, type Harness } from '../support/gateway-harness.js';

const run = promisify(execFile);
const key = newKey();
let h: Harness;
let proxy: AuthProxy;
/** The same gateway, with every initialize pinned to the older 2025 version. */
let older: AuthProxy;

beforeAll(async () => {
  const fixture = conformanceStdioParams();
  h = await startWorkspace({
    mcpSources: [demoSource('demo'), { name: 'conf', transport: 'stdio', ...fixture, prefix: 'never' }],
    keys: [keyRecord(key, { access: 'write' })],
  });
  proxy = await startAuthProxy(h.url, key.key);
  older = await startAuthProxy(h.url, key.key, { pinVersion: '2025-06-18' });
});
afterAll(async () => {
  await proxy.close();
  await older.close();
  await h.stop();
});

/** Runs every server scenario of the active suite through `via`; the summary section of its output. */
async function runSuite(via: AuthProxy): Promise<{ code: number; summary: string }> {
  // The runner must not block this process's event loop: the gateway under test lives here.
  const outcome = await run(
    process.execPath,
    [
      'node_modules/@modelcontextprotocol/conformance/dist/index.js',
      'server',
      '--url',
      `${via.url}/mcp`,
      '--expected-failures',
      'test/conformance/expected-failures.yaml',
    ],
    { encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
  ).then(
    (r) => ({ code: 0, stdout: r.stdout }),
    (e: { code?: number; stdout?: string }) => ({ code: e.code ?? 1, stdout: e.stdout ?? '' }),
  );
  const text = outcome.stdout.replace(/\x1b\[[0-9;]*m/g, '');
  return { code: outcome.code, summary: text.slice(text.indexOf('=== SUMMARY ===')) };
}

const ALWAYS_PASS = [
  'server-initialize',
  'ping',
  'tools-list',
  'tools-call-simple-text',
  'tools-call-sampling',
  'tools-call-elicitation',
  'resources-list',
  'resources-templates-read',
  'resources-subscribe',
  'prompts-list',
  'completion-complete',
  'logging-set-level',
  'dns-rebinding-protection',
];

describe('published conformance suite', () => {
  it('mcp:conformance — every server scenario passes or is a listed expected failure', async () => {
    const { code, summary } = await runSuite(proxy);
    expect(summary, summary).toContain('Baseline check passed');
    expect(code).toBe(0);
    for (const scenario of ALWAYS_PASS) expect(summary).toContain(`✓ ${scenario}:`);
    expect(proxy.versionsSeen.has('2025-11-25')).toBe(true);
  }, 320_000);

  it('mcp:conformance-2025-06-18 — the same scenarios with every session negotiated at 2025-06-18', async () => {
    const { code, summary } = await runSuite(older);
    expect(summary, summary).toContain('Baseline check passed');
    expect(code).toBe(0);
    for (const scenario of ALWAYS_PASS) expect(summary).toContain(`✓ ${scenario}:`);
    // The client followed the gateway's answer: every later request declared the older version.
    expect([...older.versionsSeen]).toContain('2025-06-18');
    expect(older.versionsSeen.has('2025-11-25')).toBe(false);
  }, 320_000);
});
