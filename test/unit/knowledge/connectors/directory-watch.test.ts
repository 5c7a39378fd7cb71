// The files connector's watcher (issue 26): one watcher per directory the sync walk would enter,
// never inside excluded directories, new directories followed, a bounded count. Real directories.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, expect, it } from 'vitest';
import {
  watchDirectories,
  type DirectoryWatch,
} from '../../../../gateway/knowledge/connectors/directory-watch.js';
import { matchesGlobs } from '../../../../gateway/knowledge/connectors/glob-match.js';

const EXCLUDE = ['**/node_modules/**', '**/.git/**'];
let root: string;
let watching: DirectoryWatch | undefined;

async function until(check: () => boolean, ms = 5000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return true;
}

/** Watches `root` with EXCLUDE left out (100 directories at most), counting the changes it reports. */
function watchCounting(): { changes: number } {
  const counted = { changes: 0 };
  watching = watchDirectories({
    root,
    excluded: (rel) => matchesGlobs(rel, EXCLUDE),
    changed: () => (counted.changes += 1),
    maxDirectories: 100,
  });
  return counted;
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agw-dirwatch-'));
  await mkdir(join(root, 'docs', 'guide'), { recursive: true });
  for (let i = 0; i < 50; i += 1)
    await mkdir(join(root, 'node_modules', `pkg${i}`, 'lib'), { recursive: true });
  await mkdir(join(root, '.git', 'objects'), { recursive: true });
});
afterEach(async () => {
  watching?.close();
  watching = undefined;
  await rm(root, { recursive: true, force: true });
});

it('memory:files-watch-bounded — excluded directories are never watched; changes there fire nothing', async () => {
  const counted = watchCounting();
  // root, docs, docs/guide: not the 100 directories under node_modules or .git.
  expect(await until(() => watching?.size() === 3)).toBe(true);
  await new Promise((resolve) => setTimeout(resolve, 200));
  expect(watching!.size()).toBe(3);
  await writeFile(join(root, 'node_modules', 'pkg1', 'lib', 'index.md'), 'x');
  await writeFile(join(root, 'node_modules', 'new.md'), 'x');
  await new Promise((resolve) => setTimeout(resolve, 300));
  expect(counted.changes).toBe(0);
  await writeFile(join(root, 'docs', 'guide', 'page.md'), '# Page');
  expect(await until(() => counted.changes > 0)).toBe(true);
});

it('memory:files-watch-bounded — a directory created later is watched, with what it holds', async () => {
  const counted = watchCounting();
  expect(await until(() => watching?.size() === 3)).toBe(true);
  await mkdir(join(root, 'docs', 'new', 'deeper'), { recursive: true });
  expect(await until(() => watching?.size() === 5)).toBe(true);
  const before = counted.changes;
  await writeFile(join(root, 'docs', 'new', 'deeper', 'later.md'), '# Later');
  expect(await until(() => counted.changes > before)).toBe(true);
});

it('memory:files-watch-bounded — no more than maxDirectories are watched', async () => {
  watching = watchDirectories({ root, excluded: () => false, changed: () => undefined, maxDirectories: 10 });
  await new Promise((resolve) => setTimeout(resolve, 500));
  expect(watching.size()).toBe(10);
  watching.close();
  expect(watching.size()).toBe(0);
});
