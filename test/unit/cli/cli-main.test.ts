import { readFile, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, it, expect, vi } from 'vitest';
import { processIo } from '../../../gateway/cli/cli-io.js';
import { COMMAND_USAGE, type CommandName } from '../../../gateway/cli/usage.js';
import { GATEWAY_VERSION } from '../../../gateway/version.js';
import { cli } from './cli-harness.js';

const COMMAND = '(serve|operator|validate-config|key (?:create|revoke|list|hash))';

/** Every flag the docs, the example config and the chart's container args give a command. */
async function documentedFlags(): Promise<{ command: CommandName; flag: string; where: string }[]> {
  const docs = (await readdir('docs')).filter((f) => f.endsWith('.md')).map((f) => join('docs', f));
  const pages = ['README.md', 'operator/README.md', 'gateway/README.md', 'charts/agent-gateway/README.md'];
  const found: { command: CommandName; flag: string; where: string }[] = [];
  const add = (command: string, text: string, where: string) => {
    for (const [flag] of text.matchAll(/--[a-z][a-z-]*/g))
      if (flag !== '--help') found.push({ command: command as CommandName, flag, where });
  };
  for (const path of [...pages, ...docs, 'examples/embedded.yaml']) {
    const text = await readFile(path, 'utf8');
    // A command line (`agent-gateway serve …` in a code block or comment) or an inline code span that
    // starts with a command (the CLI table, `serve --kubernetes`).
    for (const m of text.matchAll(new RegExp(`agent-gateway ${COMMAND}\\b([^\`\\n&#)]*)`, 'g')))
      add(m[1] as string, m[2] as string, path);
    for (const m of text.matchAll(new RegExp(`\`${COMMAND}( [^\`]*)\``, 'g')))
      add(m[1] as string, m[2] as string, path);
  }
  for (const file of ['operator-deployment.yaml', 'gateway-deployment.yaml']) {
    const path = join('charts/agent-gateway/templates', file);
    const text = await readFile(path, 'utf8');
    for (const m of text.matchAll(/args:\n\s+- (serve|operator)\n((?:\s+- .*\n)*)/g))
      add(m[1] as string, m[2] as string, path);
  }
  return found;
}

describe('runCli', () => {
  it('exits 2 with the usage on stderr for an unknown command', async () => {
    const run = await cli('frobnicate');
    expect(run.code).toBe(2);
    expect(run.out).toEqual([]);
    expect(run.err.join('\n')).toContain('unknown command "frobnicate"');
    expect(run.err.join('\n')).toContain('usage:');
  });

  it('exits 2 without a command', async () => {
    const run = await cli();
    expect(run.code).toBe(2);
    expect(run.err.join('\n')).toContain('usage:');
  });

  it('exits 0 for --help', async () => {
    expect((await cli('--help')).code).toBe(0);
  });

  it('exits 2 for an unknown key subcommand', async () => {
    expect((await cli('key', 'rotate')).code).toBe(2);
  });

  it('prints the version on stdout', async () => {
    const run = await cli('--version');
    expect(run).toEqual({ code: 0, out: [GATEWAY_VERSION], err: [] });
  });

  it('cli:help-every-command — the process io ends every line it prints with a newline (so --version does)', () => {
    const write = vi.spyOn(process.stdout, 'write').mockImplementation(() => true);
    const writeErr = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      processIo().out(GATEWAY_VERSION);
      processIo().err('usage');
      expect(write).toHaveBeenCalledWith(`${GATEWAY_VERSION}\n`);
      expect(writeErr).toHaveBeenCalledWith('usage\n');
    } finally {
      write.mockRestore();
      writeErr.mockRestore();
    }
  });

  it('exits 2 for an unknown option', async () => {
    const run = await cli('key', 'list', '--config', 'x.yaml', '--bogus');
    expect(run.code).toBe(2);
    expect(run.err.join('\n')).toContain('bogus');
  });

  it('cli:help-every-command — every command and subcommand answers --help and -h with its own usage on stdout, exit 0', async () => {
    const commands: [string[], string][] = [
      [['serve'], 'agent-gateway serve --config FILE'],
      [['operator'], 'agent-gateway operator --gateway-namespace N'],
      [['validate-config'], 'agent-gateway validate-config FILE'],
      [['key', 'create'], 'agent-gateway key create'],
      [['key', 'revoke'], 'agent-gateway key revoke'],
      [['key', 'list'], 'agent-gateway key list'],
      [['key', 'hash'], 'agent-gateway key hash'],
      [['key'], 'agent-gateway key revoke'],
      [['version'], 'agent-gateway version'],
    ];
    for (const [command, usage] of commands)
      for (const flag of ['--help', '-h']) {
        const run = await cli(...command, flag);
        expect(run.code, `${command.join(' ')} ${flag}`).toBe(0);
        expect(run.err).toEqual([]);
        expect(run.out.join('\n'), `${command.join(' ')} ${flag}`).toContain(usage);
      }
    // Even after other flags: help wins over a missing required flag.
    expect((await cli('operator', '--scope', 'cluster', '--help')).code).toBe(0);
  });

  it('cli:usage-lists-documented-flags — the top-level usage names every flag the docs document', async () => {
    const usage = (await cli('--help')).out.join('\n');
    for (const flag of [
      '--config',
      '--host',
      '--port',
      '--init-from',
      '--log-level',
      '--kubernetes',
      '--namespace',
      '--kubeconfig',
      '--gateway-namespace',
      '--scope',
      '--policy',
      '--lease-namespace',
      '--identity',
      '--health-port',
      '--health-host',
      '--workspace',
      '--access',
      '--sources',
      '--tools',
      '--name',
      '--expires',
      '--id',
      '--version',
    ])
      expect(usage, flag).toContain(flag);
  });

  it('cli:usage-lists-documented-flags — every flag the docs, the example and the chart give a command is in its own usage and the top-level usage', async () => {
    const top = (await cli('--help')).out.join('\n');
    const found = await documentedFlags();
    // The scan sees the pages it should (a renamed page or a changed code style would empty it).
    expect(found.filter((f) => f.command === 'operator').map((f) => f.flag)).toContain('--policy');
    expect(found.filter((f) => f.command === 'serve').map((f) => f.flag)).toContain('--kubernetes');
    expect(found.filter((f) => f.command === 'key create').map((f) => f.flag)).toContain('--expires');
    expect(found.some((f) => f.where.startsWith('charts/'))).toBe(true);
    for (const { command, flag, where } of found) {
      expect(COMMAND_USAGE[command], `${command} ${flag} (${where})`).toMatch(new RegExp(`${flag}\\b`));
      expect(top, `${command} ${flag} (${where})`).toContain(flag);
    }
  });
});
