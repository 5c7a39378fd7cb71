// The workspace console's static files (issue 25, docs/console.md), built by `npm run build` from
// console/ into dist/console and read into memory once at start: a handful of small files, each
// served with its content type and a strong ETag (a SHA-256 of its bytes). Only names on this list
// can be served, so no request path ever reaches the file system.
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface ConsoleAsset {
  readonly body: Buffer;
  readonly contentType: string;
  readonly etag: string;
}

const TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/** dist/console from the compiled gateway (dist/gateway/console) or from its sources (tests). */
function assetDirectory(): string {
  const candidates = ['../../console', '../../dist/console'].map((relative) =>
    fileURLToPath(new URL(relative, import.meta.url)),
  );
  const found = candidates.find(
    (dir) => existsSync(join(dir, 'index.html')) && existsSync(join(dir, 'app.js')),
  );
  if (found === undefined)
    throw new Error(
      'server.console.enabled is true but the console is not built (dist/console/index.html and app.js are missing): run npm run build',
    );
  return found;
}

/** Every servable file, by its path below /console/ (e.g. `app.js`, `views/tools-view.js`). */
export function loadConsoleAssets(dir = assetDirectory()): ReadonlyMap<string, ConsoleAsset> {
  const assets = new Map<string, ConsoleAsset>();
  const walk = (relative: string) => {
    for (const entry of readdirSync(join(dir, relative), { withFileTypes: true })) {
      const path = relative === '' ? entry.name : `${relative}/${entry.name}`;
      if (entry.isDirectory()) walk(path);
      const type = TYPES[extname(entry.name)];
      if (!entry.isFile() || type === undefined) continue;
      const body = readFileSync(join(dir, path));
      const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`;
      assets.set(path, { body, contentType: type, etag });
    }
  };
  walk('');
  return assets;
}
