// A gateway process loads only the packages its config uses (issue 26): the module-load probe
// (test/fixtures/module-load-probe.ts) runs `agent-gateway serve` in one process and reports every
// package resolved by the time it is ready, and after one request.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { freePort } from '../infra/free-port.js';
import { demoSource, keyRecord, newKey } from '../support/gateway-document.js';
import { freshNamespace, kubeconfigPath, kubectlOk } from '../support/kube-harness.js';

const run = promisify(execFile);
const PROBE = join(process.cwd(), 'dist', 'test', 'fixtures', 'module-load-probe.js');
/** What a minimal embedded gateway must not load: each is needed only by a config that uses it. */
const ON_DEMAND = [
  '@kubernetes/client-node',
  'gpt-tokenizer',
  'ioredis',
  'pg',
  '@modelcontextprotocol/client',
  '@modelcontextprotocol/core',
  'undici',
  'jose',
  '@opentelemetry/sdk-node',
];

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agw-lazy-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function probe(
  config: Record<string, unknown>,
  request?: { key: string; path: string },
  serveArgs: readonly string[] = [],
) {
  const port = await freePort();
  const file = join(dir, `gateway-${port}.yaml`);
  await writeFile(file, stringify({ version: 1, server: { host: '127.0.0.1', port }, ...config }));
  const extra = request === undefined ? [] : [request.key, request.path];
  const { stdout } = await run(
    process.execPath,
    [PROBE, String(port), ...extra, '--', '--config', file, '--log-level', 'silent', ...serveArgs],
    { timeout: 60_000, env: { ...process.env, OTEL_SDK_DISABLED: 'true' } },
  );
  const lines = stdout.trim().split('\n');
  return JSON.parse(lines[lines.length - 1] as string) as string[];
}

it('memory:lazy-loads — a minimal embedded gateway loads none of the packages only some configs need', async () => {
  const loaded = await probe({ workspaces: [{ name: 'w', keys: [] }] });
  // The probe sees what the gateway does load (so an empty list cannot pass for a clean one).
  expect(loaded).toEqual(expect.arrayContaining(['fastify', 'zod', 'yaml']));
  expect(loaded.filter((name) => ON_DEMAND.includes(name))).toEqual([]);
}, 90_000);

it('memory:lazy-loads — usage hints and an MCP source load the tokenizer and the MCP client when used', async () => {
  const key = newKey();
  const loaded = await probe(
    {
      knowledge: { usageHints: true, sqlitePath: join(dir, 'knowledge.sqlite') },
      workspaces: [{ name: 'w', mcpSources: [demoSource()], keys: [keyRecord(key, { access: 'read' })] }],
    },
    { key: key.key, path: '/agent/tools?response_format=json' },
  );
  expect(loaded).toEqual(expect.arrayContaining(['gpt-tokenizer', '@modelcontextprotocol/client']));
  expect(loaded).not.toContain('@kubernetes/client-node');
  expect(loaded).not.toContain('ioredis');
}, 90_000);

it('memory:lazy-loads — a serve --kubernetes gateway lists and watches with its own client, never loading @kubernetes/client-node', async () => {
  const namespace = await freshNamespace('agw-lazy');
  try {
    const loaded = await probe({}, undefined, [
      '--kubernetes',
      '--namespace',
      namespace,
      '--kubeconfig',
      kubeconfigPath(),
    ]);
    // Ready means the namespace was listed: the Kubernetes path did run.
    expect(loaded).toEqual(expect.arrayContaining(['fastify', 'yaml']));
    expect(loaded).not.toContain('@kubernetes/client-node');
    expect(loaded.filter((name) => ON_DEMAND.includes(name))).toEqual([]);
  } finally {
    await kubectlOk(['delete', 'namespace', namespace, '--wait=false']);
  }
}, 90_000);
