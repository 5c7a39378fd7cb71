// The `files` connector: walks a directory tree, keeps files matching the include globs and not the
// exclude globs, and yields one item per file (external id = path relative to the root). Files over
// `maxFileBytes` and files that are not valid UTF-8 text are skipped. Under a tenant reach policy
// (D19) the root must lie inside an allowed root, as written and after symbolic links; every file is
// read through readConfined, which refuses one whose real location left the root.
import { readdir } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { DataSourceConfig } from '../../config/index.js';
import { confineRoot, readConfined, type ReachPolicy, type ReachScope } from '../../reach/index.js';
import type { Connector, SourceItem } from './connector.js';
import { DEFAULT_MAX_WATCHED_DIRECTORIES, watchDirectories } from './directory-watch.js';
import { matchesGlobs } from './glob-match.js';
import { extractText } from './text-extract.js';

type FilesSource = Extract<DataSourceConfig, { type: 'files' }>;

async function* walk(
  root: string,
  dir: string,
  source: FilesSource,
  signal: AbortSignal,
): AsyncGenerator<string> {
  const entries = await readdir(dir, { withFileTypes: true });
  entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of entries) {
    signal.throwIfAborted();
    const full = join(dir, entry.name);
    const rel = relative(root, full).split(sep).join('/');
    if (matchesGlobs(rel, source.exclude) || matchesGlobs(`${rel}/`, source.exclude)) continue;
    if (entry.isDirectory()) yield* walk(root, full, source, signal);
    else if (entry.isFile() && matchesGlobs(rel, source.include)) yield rel;
  }
}

export interface FileBounds {
  readonly policy: ReachPolicy;
  readonly scope: ReachScope;
}

export function filesConnector(source: FilesSource, bounds?: FileBounds): Connector {
  // Under a policy the path is taken as written (it must be absolute); otherwise relative paths
  // resolve against the working directory, as the embedded file documents.
  const root = bounds === undefined ? resolve(source.path) : source.path;
  return {
    async *items(signal, hooks): AsyncGenerator<SourceItem> {
      const confinement = await confineRoot(root, bounds);
      const base = confinement.realRoot;
      // The tree is walked before any file is read, so the sync can show done of a known total.
      const paths: string[] = [];
      for await (const rel of walk(base, base, source, signal)) paths.push(rel);
      hooks?.total?.(paths.length);
      for (const rel of paths) {
        signal.throwIfAborted();
        const read = await readConfined(join(base, rel), confinement, source.maxFileBytes).catch(
          () => undefined,
        );
        // Gone since the walk, a symlink, outside the root, not a file or too large: not indexed.
        if (read === undefined || read.kind !== 'read') continue;
        let text: string;
        try {
          text = new TextDecoder('utf-8', { fatal: true }).decode(read.bytes);
        } catch {
          continue;
        }
        const { title, body } = extractText(rel, text);
        yield { externalId: rel, title, body, url: rel, updatedAt: read.mtime.toISOString() };
      }
    },
    ...(source.watch
      ? {
          watch(changed: () => void): () => void {
            const watching = watchDirectories({
              root,
              excluded: (rel) => matchesGlobs(rel, source.exclude),
              changed,
              maxDirectories: DEFAULT_MAX_WATCHED_DIRECTORIES,
            });
            return () => watching.close();
          },
        }
      : {}),
  };
}
