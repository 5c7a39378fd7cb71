// The `files` connector: walks a directory tree, keeps files matching the include globs and not the
// exclude globs, and yields one item per file (external id = path relative to the root). Files over
// `maxFileBytes` and files that are not valid UTF-8 text are skipped.
import { watch } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join, relative, resolve, sep } from 'node:path';
import type { DataSourceConfig } from '../../config/index.js';
import type { Connector, SourceItem } from './connector.js';
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

export function filesConnector(source: FilesSource): Connector {
  const root = resolve(source.path);
  return {
    async *items(signal): AsyncGenerator<SourceItem> {
      for await (const rel of walk(root, root, source, signal)) {
        const full = join(root, rel);
        const info = await stat(full);
        if (info.size > source.maxFileBytes) continue;
        let text: string;
        try {
          text = new TextDecoder('utf-8', { fatal: true }).decode(await readFile(full));
        } catch {
          continue;
        }
        const { title, body } = extractText(rel, text);
        yield { externalId: rel, title, body, url: rel, updatedAt: info.mtime.toISOString() };
      }
    },
    ...(source.watch
      ? {
          watch(changed: () => void): () => void {
            try {
              const watcher = watch(root, { recursive: true, persistent: false }, (_event, name) => {
                const rel = name === null ? undefined : name.split(sep).join('/');
                if (rel === undefined || !matchesGlobs(rel, source.exclude)) changed();
              });
              // A watcher that fails (directory removed, too many watches) leaves the schedule in charge.
              watcher.on('error', () => watcher.close());
              return () => watcher.close();
            } catch {
              return () => undefined;
            }
          },
        }
      : {}),
  };
}
