// Packages a process may never use, loaded synchronously the first time they are used (issue 26):
// the MCP client (only with upstream sources), undici (only for HTTP upstreams and tenant-guarded
// fetches) and jose (only with OAuth). An idle gateway that never needs them does not pay their
// memory. Node 24 `require`s an ES module synchronously; the file is resolved the way `import`
// resolves it, so both reach the same module instance (one copy of every class, so `instanceof`
// holds across the two).
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);

/** A getter for `specifier` that loads it on first call and returns the same module after. */
export function lazyModule<T>(specifier: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= require(fileURLToPath(import.meta.resolve(specifier))) as T);
}
