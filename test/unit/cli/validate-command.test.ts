import { afterEach, beforeEach, describe, it, expect } from 'vitest';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { makeTempDir, removeTempDir } from '../support/temp-dir.js';
import { cli } from './cli-harness.js';

describe('validate-config', () => {
  let dir = '';
  beforeEach(async () => {
    dir = await makeTempDir();
  });
  afterEach(async () => {
    await removeTempDir(dir);
  });

  /** Writes `text` as `name` in the test's directory and validates it. */
  async function validate(name: string, text: string) {
    const file = join(dir, name);
    await writeFile(file, text);
    return { file, run: await cli('validate-config', file) };
  }

  it('cli:pluralisation — exits 0 and summarises a valid file with counts in the right number', async () => {
    const { run } = await validate(
      'ok.yaml',
      'version: 1\nworkspaces:\n  - name: demo\n    mcpSources:\n      - name: docs\n        transport: stdio\n        command: node\n',
    );
    expect(run.code).toBe(0);
    expect(run.out).toEqual([]);
    expect(run.err.join('\n')).toContain('valid (1 workspace, 1 MCP source, 0 keys)');
  });

  it('exits 1 and lists every problem prefixed with its path', async () => {
    const { file, run } = await validate(
      'bad.yaml',
      'version: 1\nserver:\n  port: -1\nworkspaces:\n  - name: demo\n  - name: demo\n    mcpSources:\n      - name: docs\n        transport: stdio\n',
    );
    expect(run.code).toBe(1);
    const text = run.err.join('\n');
    expect(text).toContain(`${file}: 3 problems:`);
    expect(text).toMatch(/^ {2}server\.port: /m);
    expect(text).toMatch(/^ {2}workspaces\[1\]\.name: duplicate workspace name demo$/m);
    expect(text).toMatch(
      /^ {2}workspaces\[1\]\.mcpSources\[0\]\.command: is required when transport is stdio$/m,
    );
  });

  it('reports a YAML syntax error with its line', async () => {
    const { run } = await validate('broken.yaml', 'version: 1\nworkspaces: [\n');
    expect(run.code).toBe(1);
    expect(run.err.join('\n')).toMatch(/\(line \d+\): /);
  });

  it('exits 1 for a missing file', async () => {
    const run = await cli('validate-config', join(dir, 'missing.yaml'));
    expect(run.code).toBe(1);
    expect(run.err.join('\n')).toContain('ENOENT');
  });

  it('exits 2 without a file argument', async () => {
    expect((await cli('validate-config')).code).toBe(2);
  });
});
