// D1: the `agent-gateway` bin works when started by an older Node (this machine's system Node 20)
// by re-executing itself with the Node 24 provisioned from the npm package `node`.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const candidates = ['/usr/bin/node', '/usr/local/bin/node', process.execPath].filter((p) => existsSync(p));

describe('agent-gateway bin', () => {
  it.each(candidates)('cli:node-provisioning — started by %s it runs on Node >= 22.19', (nodeBinary) => {
    const script = 'process.stdout.write(process.version)';
    const started = execFileSync(nodeBinary, ['-e', script], { encoding: 'utf8' });
    const output = execFileSync(nodeBinary, ['bin/agent-gateway.js', 'version'], { encoding: 'utf8' });
    const match = /^agent-gateway \d+\.\d+\.\d+ on Node v(\d+)\.(\d+)\.\d+$/.exec(output.trim());
    expect(match, output).not.toBeNull();
    const [major, minor] = [Number(match![1]), Number(match![2])];
    expect(major > 22 || (major === 22 && minor >= 19)).toBe(true);
    const probe = execFileSync(
      nodeBinary,
      ['bin/agent-gateway.js', 'validate-config', 'examples/embedded.yaml'],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    expect(probe).toBe('');
    expect(started).toMatch(/^v\d+/);
  });

  it('cli:help-real-binary — the real binary answers operator --help and serve -h (exit 0) and --version ends with a newline', () => {
    for (const args of [
      ['operator', '--help'],
      ['serve', '-h'],
      ['key', 'create', '--help'],
    ]) {
      const output = execFileSync(process.execPath, ['bin/agent-gateway.js', ...args], { encoding: 'utf8' });
      expect(output, args.join(' ')).toContain(`agent-gateway ${args[0] as string}`);
    }
    const version = execFileSync(process.execPath, ['bin/agent-gateway.js', '--version'], {
      encoding: 'utf8',
    });
    expect(version).toMatch(/^\d+\.\d+\.\d+\n$/);
  });
});
