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
});
