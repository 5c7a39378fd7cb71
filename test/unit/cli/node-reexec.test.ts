// bin/agent-gateway.js on a Node older than 22.19 re-executes itself with the provisioned Node 24
// (DESIGN D1). The Node flags it was started with go along (issue 45): `npm start` gives the heap
// settings on the command line, and the system Node here is 20, so without them the gateway would
// run on V8's defaults.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const SYSTEM_NODE = '/usr/bin/node';
const systemMajor = existsSync(SYSTEM_NODE)
  ? Number(spawnSync(SYSTEM_NODE, ['-p', 'process.versions.node.split(".")[0]'], { encoding: 'utf8' }).stdout)
  : Number.NaN;

describe('the bin on an old Node', () => {
  it.runIf(systemMajor < 22)(
    'cli:reexec-keeps-node-flags — the re-executed Node 24 gets the flags the old Node was started with',
    async () => {
      const preload = join(await mkdtemp(join(tmpdir(), 'agw-reexec-')), 'preload.cjs');
      await writeFile(preload, 'process.stderr.write(`preloaded in ${process.version}\\n`);\n');
      const run = spawnSync(SYSTEM_NODE, ['--require', preload, 'bin/agent-gateway.js', 'version'], {
        encoding: 'utf8',
      });
      expect(run.status).toBe(0);
      const versions = [...run.stderr.matchAll(/preloaded in v(\d+)\./g)].map((match) => Number(match[1]));
      expect(versions).toEqual([systemMajor, 24]);
      expect(run.stdout).toMatch(/on Node v24\./);
    },
  );
});
