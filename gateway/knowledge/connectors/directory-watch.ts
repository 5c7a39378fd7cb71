// Follows changes under a files source's root (issue 4) with one watcher per directory the sync
// walk would enter: excluded directories (node_modules, .git by default) are never watched. Node's
// `recursive: true` on Linux watches every file and directory below the root, excluded or not —
// 45,000 watchers and ~40 MiB of heap for a repository checkout (issue 26) — and runs into the
// inotify limit. A directory created later is watched when its parent reports it. At most
// `maxDirectories` are watched; past that the sync schedule alone picks up changes there.
import { watch, type FSWatcher } from 'node:fs';
import { readdir } from 'node:fs/promises';
import { join, relative, sep } from 'node:path';

export interface DirectoryWatchOptions {
  readonly root: string;
  /** True for a path (relative to the root, `/`-separated; directories end in `/`) to leave alone. */
  readonly excluded: (rel: string) => boolean;
  readonly changed: () => void;
  readonly maxDirectories: number;
}

export const DEFAULT_MAX_WATCHED_DIRECTORIES = 4096;

export interface DirectoryWatch {
  /** How many directories are watched now. */
  size(): number;
  close(): void;
}

export function watchDirectories(options: DirectoryWatchOptions): DirectoryWatch {
  const watchers = new Map<string, FSWatcher>();
  let stopped = false;

  const relOf = (full: string) => relative(options.root, full).split(sep).join('/');

  const add = async (dir: string): Promise<void> => {
    if (stopped || watchers.has(dir) || watchers.size >= options.maxDirectories) return;
    let watcher: FSWatcher;
    try {
      watcher = watch(dir, { persistent: false }, (_event, name) => {
        if (name === null) return options.changed();
        const full = join(dir, name);
        const rel = relOf(full);
        if (options.excluded(rel) || options.excluded(`${rel}/`)) return;
        options.changed();
        // A new directory is watched with what it already holds.
        void add(full);
      });
    } catch {
      return; // not a directory (any more), or no permission: nothing to watch here
    }
    // A watcher that fails (directory removed, too many watches) is dropped; the schedule remains.
    watcher.on('error', () => {
      watcher.close();
      watchers.delete(dir);
    });
    watchers.set(dir, watcher);
    const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (!entry.isDirectory()) continue;
      const full = join(dir, entry.name);
      const rel = relOf(full);
      if (options.excluded(rel) || options.excluded(`${rel}/`)) continue;
      await add(full);
    }
  };

  void add(options.root);
  return {
    size: () => watchers.size,
    close() {
      stopped = true;
      for (const watcher of watchers.values()) watcher.close();
      watchers.clear();
    },
  };
}
