import { describe, it, expect } from 'vitest';
import { GATEWAY_VERSION } from '../../../gateway/version.js';
import { cli } from './cli-harness.js';

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
});
