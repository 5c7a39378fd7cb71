// The README's quick start, run as written (issue 20: keep a test that the README's commands still
// run): its two commands are `npm start` and `npm test`, and the first-call commands that follow
// work against a gateway started the way `npm start` starts it (its script, with a private config
// path and a free port; building is already done by the suite).
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChild, type Child } from '../bench/child-process.js';
import { freePort } from '../infra/free-port.js';

const run = promisify(execFile);
let readme = '';
let gateway: Child | undefined;
let dir = '';
let port = 0;

/** The ```sh blocks of one `## ` section of the README. */
function shellBlocks(section: string): string[] {
  const start = readme.indexOf(`\n## ${section}\n`);
  const end = readme.indexOf('\n## ', start + 1);
  const text = readme.slice(start, end < 0 ? undefined : end);
  return [...text.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

beforeAll(async () => {
  readme = await readFile('README.md', 'utf8');
  dir = await mkdtemp(join(tmpdir(), 'agw-readme-'));
  port = await freePort();
  const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { scripts: Record<string, string> };
  // npm start's own command line, pointed at a private copy of the example and a free port.
  const start = pkg.scripts['start'] ?? '';
  const serve = /node (bin\/agent-gateway\.js serve .*)$/.exec(start)?.[1];
  expect(serve).toBeDefined();
  const args = (serve as string).replace('local/gateway.yaml', join(dir, 'gateway.yaml')).split(' ');
  // npm start creates local/ (its config's directory), where the example keeps its SQLite index.
  await mkdir('local', { recursive: true });
  gateway = await startChild([...args, '--port', String(port)], /listening on/, 'stderr');
}, 60_000);

afterAll(async () => {
  await gateway?.stop();
  await rm(dir, { recursive: true, force: true });
});

describe('the README quick start', () => {
  it('readme:quickstart — two commands (npm start, npm test), and the first calls it shows work as written', async () => {
    const [commands, firstCall, search] = shellBlocks('Quick start');
    expect(commands).toMatch(/^npm install && npm start\b/m);
    expect(commands).toMatch(/^npm test\b/m);
    const ci = await readFile('.ci/run', 'utf8');
    expect(ci).toMatch(/^npm test$/m);
    // The first-call block and the search block, with this run's config path and port.
    const script = [firstCall, search]
      .join('\n')
      .replaceAll('local/gateway.yaml', join(dir, 'gateway.yaml'))
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`)
      .replaceAll('curl -s', 'curl -sf');
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      env: {
        ...process.env,
        PATH: `${join(process.cwd(), 'node_modules', '.bin')}:${process.env['PATH'] ?? ''}`,
      },
      timeout: 60_000,
    });
    expect(stdout).toMatch(/^tools\[\d+\]\{name,source,permission,callable,description\}:/m);
    expect(stdout).toContain('demo__add');
    expect(stdout).toMatch(/"answer"|answer:/);
  }, 90_000);
});
