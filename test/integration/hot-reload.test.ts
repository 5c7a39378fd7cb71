// DESIGN D10 / issue: config changes are validated then swapped in atomically while requests are
// served; invalid versions are ignored; keys created or revoked by the CLI take effect without restart.
import { readFile } from 'node:fs/promises';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../gateway/cli/cli-main.js';
import type { CliIo } from '../../gateway/cli/cli-io.js';
import { demoSource, keyRecord, newKey } from '../support/gateway-document.js';
import { get, startHarness, fileHarness } from '../support/gateway-harness.js';

const base = newKey();

function captureIo(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = [];
  const stderr: string[] = [];
  return {
    stdout,
    stderr,
    out: (l) => stdout.push(l),
    err: (l) => stderr.push(l),
    now: () => new Date(),
    env: {},
  };
}

function workspaceDoc(displayName: string, keys: Record<string, unknown>[] = [keyRecord(base)]) {
  return { workspaces: [{ name: 'demo', displayName, mcpSources: [demoSource()], keys }] };
}

const h = fileHarness(() => startHarness(workspaceDoc('v0')));

describe('keys through the CLI, without restart', () => {
  it('reload:key-create — a key created by the CLI is accepted after the reload', async () => {
    const io = captureIo();
    const revision = h.gateway.config.current().revision;
    expect(await runCli(['key', 'create', '--config', h.configPath, '--workspace', 'demo'], io)).toBe(0);
    expect(io.stdout).toHaveLength(1);
    const key = io.stdout[0]!;
    const onDisk = await readFile(h.configPath, 'utf8');
    expect(onDisk.includes(key)).toBe(false);
    await h.waitForRevision(revision);
    expect((await get(`${h.url}/agent/tools`, key)).status).toBe(200);
  });

  it('auth:revocation-without-restart — a revoked key is refused after the reload', async () => {
    const io = captureIo();
    expect(await runCli(['key', 'create', '--config', h.configPath, '--workspace', 'demo'], io)).toBe(0);
    const key = io.stdout[0]!;
    const id = key.split('_')[1]!;
    await h.waitForRevision(h.gateway.config.current().revision - 1);
    const deadline = Date.now() + 10_000;
    while ((await get(`${h.url}/agent/tools`, key)).status !== 200 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect((await get(`${h.url}/agent/tools`, key)).status).toBe(200);

    const revision = h.gateway.config.current().revision;
    expect(await runCli(['key', 'revoke', '--config', h.configPath, '--id', id], captureIo())).toBe(0);
    await h.waitForRevision(revision);
    const response = await get(`${h.url}/agent/tools`, key);
    expect(response.status).toBe(401);
    expect(((await response.json()) as { error: { message: string } }).error.message).toContain('revoked');
  });
});

describe('deny wins', () => {
  it('reload:revocation-from-rejected-file — a revocation in a file that is otherwise rejected still takes effect, and nothing else of it', async () => {
    const io = captureIo();
    expect(await runCli(['key', 'create', '--config', h.configPath, '--workspace', 'demo'], io)).toBe(0);
    const key = io.stdout[0]!;
    const id = key.split('_')[1]!;
    const deadline = Date.now() + 10_000;
    while ((await get(`${h.url}/agent/tools`, key)).status !== 200 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 20));
    expect((await get(`${h.url}/agent/tools`, key)).status).toBe(200);
    const good = await readFile(h.configPath, 'utf8');
    // An unrelated mistake (a duplicate workspace) plus a brand-new key, then the revocation.
    const extra = newKey();
    const broken = parse(good) as { workspaces: Record<string, unknown>[] };
    broken.workspaces.push({ name: 'demo' });
    (broken.workspaces[0]!['keys'] as unknown[]).push(keyRecord(extra));
    await h.writeConfig(broken);
    const revoke = captureIo();
    expect(await runCli(['key', 'revoke', '--config', h.configPath, '--id', id], revoke)).toBe(0);
    expect(revoke.stderr.join('\n')).toContain('warning:');
    const until = Date.now() + 10_000;
    while ((await get(`${h.url}/agent/tools`, key)).status !== 401 && Date.now() < until)
      await new Promise((r) => setTimeout(r, 20));
    expect((await get(`${h.url}/agent/tools`, key)).status).toBe(401);
    expect((await get(`${h.url}/agent/tools`, extra.key)).status).toBe(401);
    expect((await get(`${h.url}/agent/tools`, base.key)).status).toBe(200);
    expect(h.logs.some((l) => l.includes('revocations from the rejected config applied'))).toBe(true);
    await h.writeConfig(parse(good));
  });
});

describe('validate, then swap', () => {
  it('reload:invalid-kept-last-good — an invalid file is logged by path and ignored', async () => {
    const before = h.gateway.config.current();
    const seen = h.logs.length;
    const current = parse(await readFile(h.configPath, 'utf8')) as Record<string, unknown>;
    await h.writeConfig({
      ...current,
      workspaces: [{ name: 'demo', mcpSources: [{ name: 'broken', transport: 'stdio' }], keys: [] }],
    });
    const deadline = Date.now() + 10_000;
    const rejected = () => h.logs.slice(seen).find((l) => l.includes('config change rejected'));
    while (rejected() === undefined && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    const warning = rejected();
    expect(warning).toBeDefined();
    expect(warning).toContain('workspaces[0].mcpSources[0].command');
    expect(h.gateway.config.current().revision).toBe(before.revision);
    expect((await get(`${h.url}/agent/tools`, base.key)).status).toBe(200);
    await h.writeConfig(current);
  });

  it('reload:concurrent — requests in flight during repeated swaps all succeed', async () => {
    const startRevision = h.gateway.config.current().revision;
    let stop = false;
    const statuses: number[] = [];
    const workers = Array.from({ length: 8 }, async () => {
      while (!stop) {
        const response = await get(`${h.url}/agent/sources?response_format=json`, base.key);
        statuses.push(response.status);
        const body = (await response.json()) as { workspace: string };
        expect(body.workspace).toBe('demo');
      }
    });
    for (let i = 1; i <= 8; i += 1) {
      const revision = h.gateway.config.current().revision;
      await h.writeConfig(workspaceDoc(`v${i}`));
      await h.waitForRevision(revision);
    }
    stop = true;
    await Promise.all(workers);
    expect(h.gateway.config.current().revision).toBeGreaterThanOrEqual(startRevision + 8);
    expect(statuses.length).toBeGreaterThan(8);
    expect(statuses.filter((s) => s !== 200)).toEqual([]);
    expect(h.gateway.config.current().config.workspaces[0]?.displayName).toBe('v8');
  });
});
