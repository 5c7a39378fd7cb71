// The README's quick start, run as written (issue 20: keep a test that the README's commands still
// run): its two commands are `npm start` and `npm test`, and the first-call commands that follow
// work against a gateway started the way `npm start` starts it (its script, with a private config
// path and a free port; building is already done by the suite). The docs pages' commands against
// that embedded gateway (`127.0.0.1:8080`) run after them, with the quick start's key; the cluster
// walkthroughs are run by helm-chart.test.ts and kube-operator-e2e.test.ts.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
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
  return blocks(readme.slice(start, end < 0 ? undefined : end));
}

function blocks(markdown: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] as string);
}

/** The ```sh blocks of docs/*.md that call the embedded gateway, by page. */
async function docsBlocksForEmbedded(): Promise<[string, string][]> {
  const pages = (await readdir('docs')).filter((f) => f.endsWith('.md')).sort();
  const found: [string, string][] = [];
  for (const page of pages)
    for (const block of blocks(await readFile(join('docs', page), 'utf8')))
      if (block.includes('127.0.0.1:8080') && !/\b(kubectl|helm)\b/.test(block)) found.push([page, block]);
  return found;
}

beforeAll(async () => {
  readme = await readFile('README.md', 'utf8');
  dir = await mkdtemp(join(tmpdir(), 'agw-readme-'));
  port = await freePort();
  const pkg = JSON.parse(await readFile('package.json', 'utf8')) as { scripts: Record<string, string> };
  // npm start's own command line, pointed at a private copy of the example and a free port.
  const start = pkg.scripts['start'] ?? '';
  // Node flags first (npm start runs the gateway with a small young generation, issue 26), then the CLI.
  const serve = /node ((?:--\S+ )*bin\/agent-gateway\.js serve .*)$/.exec(start)?.[1];
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
    // The first-call block, the search block and the docs pages' calls (docs/api.md's MCP call, at
    // least) as one script, with this run's config path and port and a marker line between blocks.
    const docs = await docsBlocksForEmbedded();
    expect(docs.map(([page]) => page)).toContain('api.md');
    const [keyLine, ...firstCalls] = (firstCall as string).split('\n');
    expect(keyLine).toMatch(/^KEY=\$\(npx agent-gateway key create /);
    // The README's reader types the next command; a script is faster than the gateway's reload of
    // the file (debounced), so it waits for the key as the reader would (at most 10 s).
    const waitForKey =
      'for i in $(seq 100); do [ "$(curl -o /dev/null -s -w "%{http_code}" http://127.0.0.1:8080/agent/tools ' +
      '-H "Authorization: Bearer $KEY")" = 200 ] && break; sleep 0.1; done';
    const script = [
      keyLine,
      waitForKey,
      ...firstCalls,
      search,
      ...docs.map(([page, block]) => `echo '>>> ${page}'\n${block}`),
    ]
      .join('\n')
      .replaceAll('local/gateway.yaml', join(dir, 'gateway.yaml'))
      .replaceAll('127.0.0.1:8080', `127.0.0.1:${port}`)
      .replaceAll('curl -s ', 'curl -sSf ');
    const { stdout: all } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      env: {
        ...process.env,
        PATH: `${join(process.cwd(), 'node_modules', '.bin')}:${process.env['PATH'] ?? ''}`,
      },
      timeout: 60_000,
    });
    const [stdout, ...pages] = all.split(/^>>> /m);
    expect(stdout).toMatch(/^tools\[\d+\]\{name,source,permission,callable,description\}:/m);
    expect(stdout).toContain('demo__add');
    expect(stdout).toMatch(/"answer"|answer:/);
    expect(pages).toHaveLength(docs.length);
    for (const answer of pages) {
      expect(answer).not.toMatch(/"error"|"isError":true/);
      if (answer.startsWith('api.md')) expect(answer).toContain('"text":"hi"');
    }
  }, 90_000);
});
