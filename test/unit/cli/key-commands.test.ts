import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { corruptLastCharacter } from '../../support/corrupt-key.js';
import { readFile, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { authenticate, generateKey, hashKey, parseKey } from '../../../gateway/auth/index.js';
import { formatProblems, parseConfigText, type GatewayConfig } from '../../../gateway/config/index.js';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { cli, NOW } from './cli-harness.js';

const CONFIG = `# Gateway config for the demo workspace.
version: 1
workspaces:
  # The demo workspace keeps its keys below.
  - name: demo
    mcpSources:
      - name: docs # upstream docs server
        transport: stdio
        command: node
    keys: []
  - name: other
`;

async function loadConfig(file: string): Promise<GatewayConfig> {
  const result = parseConfigText(await readFile(file, 'utf8'));
  if (!result.ok) throw new Error(formatProblems(result.problems));
  return result.config;
}

describe('key commands', () => {
  let dir = '';
  let file = '';

  beforeEach(async () => {
    dir = await makeTempDir();
    file = join(dir, 'gateway.yaml');
    await writeFile(file, CONFIG);
  });

  afterEach(async () => {
    await removeTempDir(dir);
  });

  /** `key create` in the demo workspace of the test's file, with any further flags. */
  function createInDemo(...extra: string[]) {
    return cli('key', 'create', '--config', file, '--workspace', 'demo', ...extra);
  }

  async function createKey(...extra: string[]): Promise<string> {
    const run = await createInDemo(...extra);
    if (run.code !== 0) throw new Error(`key create failed: ${run.err.join('\n')}`);
    return run.out[0]!;
  }

  describe('key create', () => {
    it('prints exactly one line on stdout: a well-formed key', async () => {
      const run = await createInDemo('--access', 'write', '--tools', 'demo__*', '--expires', '30d');
      expect(run.code).toBe(0);
      expect(run.out).toHaveLength(1);
      expect(parseKey(run.out[0]!)).toBeDefined();
      expect(run.err.join('\n')).not.toContain(run.out[0]!);
    });

    it('writes only the hash of the key, never the key or its secret part', async () => {
      const key = await createKey('--access', 'write');
      const text = await readFile(file, 'utf8');
      const secretPart = key.slice('agw_'.length + 10 + 1);
      expect(text).toContain(hashKey(key));
      expect(text).not.toContain(key);
      expect(text).not.toContain(secretPart);
      expect(text).not.toContain(secretPart.slice(0, 43));
    });

    it('stores the requested access, tools, creation time and an expiry 30 days after now', async () => {
      const key = await createKey('--access', 'write', '--tools', 'demo__*', '--expires', '30d');
      const config = await loadConfig(file);
      const record = config.workspaces[0]!.keys[0]!;
      expect(record.id).toBe(parseKey(key)!.id);
      expect(record.access).toBe('write');
      expect(record.tools).toEqual(['demo__*']);
      expect(record.sources).toEqual(['*']);
      expect(record.createdAt).toBe(NOW.toISOString());
      expect(Date.parse(record.expiresAt!) - NOW.getTime()).toBe(30 * 86_400_000);
      expect(record.revoked).toBe(false);
    });

    it('splits comma-separated sources and defaults to read access', async () => {
      await createKey('--sources', 'docs, wiki-*', '--name', 'ci bot');
      const record = (await loadConfig(file)).workspaces[0]!.keys[0]!;
      expect(record).toMatchObject({
        access: 'read',
        sources: ['docs', 'wiki-*'],
        tools: ['*'],
        name: 'ci bot',
      });
    });

    it('keeps the comments and the other content of the file', async () => {
      await createKey();
      const text = await readFile(file, 'utf8');
      expect(text).toContain('# Gateway config for the demo workspace.');
      expect(text).toContain('# The demo workspace keeps its keys below.');
      expect(text).toContain('# upstream docs server');
      expect((await loadConfig(file)).workspaces.map((w) => w.name)).toEqual(['demo', 'other']);
    });

    it('appends a second key next to the first', async () => {
      const first = await createKey();
      const second = await createKey('--access', 'write');
      const ids = (await loadConfig(file)).workspaces[0]!.keys.map((k) => k.id);
      expect(ids).toEqual([parseKey(first)!.id, parseKey(second)!.id]);
    });

    it('adds a keys list to a workspace that has none', async () => {
      const run = await cli('key', 'create', '--config', file, '--workspace', 'other');
      expect(run.code).toBe(0);
      expect((await loadConfig(file)).workspaces[1]!.keys).toHaveLength(1);
    });

    it('accepts a key that authenticates against the written config', async () => {
      const key = await createKey('--access', 'write', '--tools', 'demo__*');
      const outcome = authenticate(`Bearer ${key}`, await loadConfig(file), NOW);
      expect(outcome.ok && outcome.principal.workspace.name).toBe('demo');
    });

    it('exits non-zero for an unknown workspace and leaves the file and directory unchanged', async () => {
      const run = await cli('key', 'create', '--config', file, '--workspace', 'nope');
      expect(run.code).not.toBe(0);
      expect(run.out).toEqual([]);
      expect(run.err.join('\n')).toContain('nope');
      expect(await readFile(file, 'utf8')).toBe(CONFIG);
      expect(await readdir(dir)).toEqual(['gateway.yaml']);
    });

    it('refuses an invalid access level and leaves the file unchanged', async () => {
      const run = await createInDemo('--access', 'admin');
      expect(run.code).toBe(2);
      expect(await readFile(file, 'utf8')).toBe(CONFIG);
    });

    it('refuses an expiry in the past', async () => {
      const run = await createInDemo('--expires', '2020-01-01T00:00:00Z');
      expect(run.code).not.toBe(0);
      expect(run.err.join('\n')).toContain('future');
      expect(await readFile(file, 'utf8')).toBe(CONFIG);
    });

    it('refuses to edit a file that is already invalid', async () => {
      const broken = `${CONFIG}  - name: other\n`;
      await writeFile(file, broken);
      const run = await createInDemo();
      expect(run.code).not.toBe(0);
      expect(run.err.join('\n')).toContain('workspaces[2].name');
      expect(await readFile(file, 'utf8')).toBe(broken);
    });
  });

  describe('key revoke', () => {
    it('marks the key revoked so authenticate reports revoked', async () => {
      const key = await createKey();
      const id = parseKey(key)!.id;
      expect(authenticate(`Bearer ${key}`, await loadConfig(file), NOW).ok).toBe(true);
      const run = await cli('key', 'revoke', '--config', file, '--id', id);
      expect(run.code).toBe(0);
      const config = await loadConfig(file);
      expect(config.workspaces[0]!.keys[0]!.revoked).toBe(true);
      expect(authenticate(`Bearer ${key}`, config, NOW)).toEqual({ ok: false, reason: 'revoked' });
    });

    it('cli:revoke-despite-unrelated-errors — revokes in a file with an unrelated problem, warns naming it, exits 0', async () => {
      const key = await createKey();
      const id = parseKey(key)!.id;
      const broken = `${await readFile(file, 'utf8')}  - name: other\n`;
      await writeFile(file, broken);
      const run = await cli('key', 'revoke', '--config', file, '--id', id);
      expect(run.code).toBe(0);
      const after = await readFile(file, 'utf8');
      expect(after).toContain('revoked: true');
      // Only the revocation changed: the unrelated problem is left for its owner to fix.
      expect(after.replace(/\n\s*revoked: true/, '')).toBe(broken);
      const warning = run.err.join('\n');
      expect(warning).toContain('warning:');
      expect(warning).toContain('workspaces[2].name');
      expect(warning).toContain('still applies this revocation');
    });

    it('fails for an unknown id and leaves the file unchanged', async () => {
      const run = await cli('key', 'revoke', '--config', file, '--id', generateKey().id);
      expect(run.code).not.toBe(0);
      expect(await readFile(file, 'utf8')).toBe(CONFIG);
    });
  });

  describe('key list', () => {
    it('prints each key id, workspace and status but at most a 12-hex fingerprint of its hash', async () => {
      const active = parseKey(await createKey('--name', 'laptop'))!.id;
      const revoked = parseKey(await createKey())!.id;
      expect((await cli('key', 'revoke', '--config', file, '--id', revoked)).code).toBe(0);
      const run = await cli('key', 'list', '--config', file);
      expect(run.code).toBe(0);
      expect(run.out[0]).toBe('ID\tWORKSPACE\tACCESS\tSTATUS\tFINGERPRINT\tNAME');
      const rows = run.out.slice(1).map((line) => line.split('\t'));
      expect(rows).toEqual([
        [active, 'demo', 'read', 'active', expect.stringMatching(/^[0-9a-f]{12}$/), 'laptop'],
        [revoked, 'demo', 'read', 'revoked', expect.stringMatching(/^[0-9a-f]{12}$/), ''],
      ]);
      expect(run.out.join('\n')).not.toMatch(/[0-9a-f]{13,}/);
    });

    it('cli:list-despite-unrelated-errors — lists the keys of a file with an unrelated problem, warns, exits 0', async () => {
      const id = parseKey(await createKey('--name', 'laptop'))!.id;
      await writeFile(file, `${await readFile(file, 'utf8')}  - name: other\n`);
      const run = await cli('key', 'list', '--config', file);
      expect(run.code).toBe(0);
      expect(run.out[1]?.split('\t')).toEqual([
        id,
        'demo',
        'read',
        'active',
        expect.stringMatching(/^[0-9a-f]{12}$/),
        'laptop',
      ]);
      expect(run.err.join('\n')).toContain('workspaces[2].name');
    });

    it('shows a key whose expiry has passed as expired', async () => {
      await writeFile(
        file,
        CONFIG.replace(
          'keys: []',
          `keys:\n      - id: AAAAAAAAAA\n        hash: sha256:${'b'.repeat(64)}\n        expiresAt: "2026-02-01T00:00:00Z"`,
        ),
      );
      const run = await cli('key', 'list', '--config', file);
      expect(run.code).toBe(0);
      expect(run.out[1]?.split('\t')[3]).toBe('expired');
    });
  });
});

describe('key hash', () => {
  it('cli:key-hash — prints keyId and keyHash of a key read on stdin; refuses anything else', async () => {
    const { runCli } = await import('../../../gateway/cli/cli-main.js');
    const key = generateKey();
    const run = async (input: string) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await runCli(['key', 'hash'], {
        out: (line) => out.push(line),
        err: (line) => err.push(line),
        now: () => NOW,
        env: {},
        readStdin: () => Promise.resolve(input),
      });
      return { code, out, err };
    };
    const good = await run(`${key.key}\n`);
    expect(good.code).toBe(0);
    expect(good.out).toEqual([`keyId: ${key.id}`, `keyHash: ${key.hash}`]);
    const bad = await run(corruptLastCharacter(key.key));
    expect(bad.code).toBe(1);
    expect(bad.out).toEqual([]);
    expect(bad.err.join('\n')).not.toContain(key.key.slice(0, -1));
  });
});
