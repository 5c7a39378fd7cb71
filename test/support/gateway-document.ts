// The config document a test gateway starts from: keys and their records, the demo stdio source,
// Streamable HTTP sources (the fixture servers) and the one-workspace document most tests use.
// gateway-harness.ts starts a gateway on it (and re-exports these names).
import { resolve } from 'node:path';
import { generateKey, type GeneratedKey } from '../../gateway/auth/index.js';

export const DEMO_SERVER = resolve('dist/examples/demo-mcp-server/main.js');

export function demoSource(name = 'demo', extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, transport: 'stdio', command: process.execPath, args: [DEMO_SERVER], ...extra };
}

export function keyRecord(key: GeneratedKey, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { id: key.id, hash: key.hash, ...extra };
}

export function newKey(): GeneratedKey {
  return generateKey();
}

type Keys<N extends number, T extends GeneratedKey[] = []> = T['length'] extends N
  ? T
  : Keys<N, [...T, GeneratedKey]>;

/** `count` fresh keys at once, typed as a tuple: `const [reader, writer] = newKeys(2);`. */
export function newKeys<N extends number>(count: N): Keys<N> {
  return Array.from({ length: count }, () => generateKey()) as Keys<N>;
}

/** An upstream reached over Streamable HTTP (the fixture servers), with any further source fields. */
export function httpSource(
  name: string,
  url: string,
  extra: Record<string, unknown> = {},
): Record<string, unknown> {
  return { name, transport: 'streamable-http', url, ...extra };
}

/**
 * The document most tests start from: one workspace (named `demo` unless it says otherwise) with its
 * sources and keys, plus any top-level fields (`server`, `tenants`, ...).
 */
export function oneWorkspace(
  workspace: Record<string, unknown>,
  top: Record<string, unknown> = {},
): Record<string, unknown> {
  return { ...top, workspaces: [{ name: 'demo', ...workspace }] };
}
