// Runs the published MCP conformance suite (server scenarios) against the gateway's real /mcp endpoint,
// through a loopback proxy that adds the API key (the runner cannot). The upstream serving the suite's
// own fixtures is the repo's conformance fixture server (proven against the suite directly by
// conformance-fixture.test.ts) under `prefix: never`, so the scenarios' names reach it unchanged;
// the demo server sits beside it under the default `always` policy. Passes only when every failure is in the baseline file
// (test/conformance/expected-failures.yaml, each with its reason) and no baseline entry now passes.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startAuthProxy, type AuthProxy } from '../conformance/auth-proxy.js';
import { conformanceStdioParams } from '../fixtures/upstreams/conformance-server.js';
import { demoSource, keyRecord, newKey, startHarness, type Harness } from '../support/gateway-harness.js';

const run = promisify(execFile);
const key = newKey();
let h: Harness;
let proxy: AuthProxy;

beforeAll(async () => {
  const fixture = conformanceStdioParams();
  h = await startHarness({
    workspaces: [
      {
        name: 'demo',
        mcpSources: [demoSource('demo'), { name: 'conf', transport: 'stdio', ...fixture, prefix: 'never' }],
        keys: [keyRecord(key, { access: 'write' })],
      },
    ],
  });
  proxy = await startAuthProxy(h.url, key.key);
});
afterAll(async () => {
  await proxy.close();
  await h.stop();
});

describe('published conformance suite', () => {
  it('mcp:conformance — every server scenario passes or is a listed expected failure', async () => {
    // The runner must not block this process's event loop: the gateway under test lives here.
    const outcome = await run(
      process.execPath,
      [
        'node_modules/@modelcontextprotocol/conformance/dist/index.js',
        'server',
        '--url',
        `${proxy.url}/mcp`,
        '--expected-failures',
        'test/conformance/expected-failures.yaml',
      ],
      { encoding: 'utf8', timeout: 300_000, maxBuffer: 64 * 1024 * 1024 },
    ).then(
      (r) => ({ code: 0, stdout: r.stdout }),
      (e: { code?: number; stdout?: string }) => ({ code: e.code ?? 1, stdout: e.stdout ?? '' }),
    );
    const text = outcome.stdout.replace(/\x1b\[[0-9;]*m/g, '');
    const summary = text.slice(text.indexOf('=== SUMMARY ==='));
    expect(summary, summary).toContain('Baseline check passed');
    expect(outcome.code).toBe(0);
    for (const scenario of [
      'server-initialize',
      'ping',
      'tools-list',
      'resources-list',
      'prompts-list',
      'logging-set-level',
      'dns-rebinding-protection',
    ]) {
      expect(summary).toContain(`✓ ${scenario}:`);
    }
  }, 320_000);
});
