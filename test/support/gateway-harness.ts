// Starts the real gateway (the composition root in gateway/main.ts) on port 0 with a config file in
// a temp dir and the real demo MCP server as a stdio upstream. Every log line is captured so tests
// can inspect it. Requires `npm run build` (the demo server runs from dist/).
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { afterAll, beforeAll } from 'vitest';
import { stringify } from 'yaml';
import { startGateway, type RunningGateway } from '../../gateway/main.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import { oneWorkspace } from './gateway-document.js';

// The document builders live in gateway-document.ts; these names stay importable from here.
export {
  DEMO_SERVER,
  demoSource,
  httpSource,
  keyRecord,
  newKey,
  newKeys,
  oneWorkspace,
} from './gateway-document.js';

export interface Harness {
  readonly url: string;
  readonly dir: string;
  readonly configPath: string;
  /** The audit trail's file (issue 29): every harness writes it there unless the document sets it. */
  readonly auditPath: string;
  readonly logs: string[];
  readonly gateway: RunningGateway;
  writeConfig(document: unknown): Promise<void>;
  /** Waits until the gateway has swapped in a config revision above `revision`. */
  waitForRevision(revision: number): Promise<void>;
  stop(): Promise<void>;
}

/** `startHarness` on the one-workspace document (see `oneWorkspace`). */
export function startWorkspace(
  workspace: Record<string, unknown>,
  top: Record<string, unknown> = {},
  env: Record<string, string> = {},
): Promise<Harness> {
  return startHarness(oneWorkspace(workspace, top), env);
}

/**
 * A handle that reads every property from `current()` when it is read: what a file's tests hold for
 * a value its beforeAll creates (the harness, its fixture upstreams).
 */
export function forwarding<T extends object>(current: () => T): T {
  // Never a thenable: awaiting or returning the handle from an async function must not read it.
  return new Proxy({} as T, {
    get: (_target, name) => (name === 'then' ? undefined : (Reflect.get(current(), name) as unknown)),
  });
}

/**
 * A gateway whose document names paths in its own directory (files data sources): started on an
 * empty document, then `document(dir)` (which may write files there first) is swapped in.
 */
export async function startHarnessIn(
  document: (dir: string) => Promise<Record<string, unknown>>,
): Promise<Harness> {
  const h = await startHarness({});
  const next = await document(h.dir);
  const revision = h.gateway.config.current().revision;
  await h.writeConfig(next);
  await h.waitForRevision(revision);
  return h;
}

/**
 * The gateway a test file shares: `start` runs in beforeAll (start the fixture upstreams there, then
 * the gateway) and afterAll stops the gateway, then runs `after` (upstreams close once nothing calls
 * them; `startTimeoutMs` is beforeAll's timeout). The handle forwards to the running harness, so tests
 * read `h.url` as before.
 */
export function fileHarness(
  start: () => Promise<Harness>,
  after: () => Promise<unknown> = () => Promise.resolve(),
  startTimeoutMs?: number,
): Harness {
  let running: Harness | undefined;
  const current = (): Harness => {
    if (running === undefined)
      throw new Error("this file's gateway is not running (used outside its tests?)");
    return running;
  };
  beforeAll(async () => {
    running = await start();
  }, startTimeoutMs);
  afterAll(async () => {
    await running?.stop();
    await after();
  });
  return forwarding(current);
}

/** A log destination that appends every line written to it to `lines`. */
export function logLines(lines: string[]): Writable {
  return new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(
        ...chunk
          .toString('utf8')
          .split('\n')
          .filter((line) => line !== ''),
      );
      callback();
    },
  });
}

export async function startHarness(
  document: Record<string, unknown>,
  env: Record<string, string> = {},
): Promise<Harness> {
  const dir = await mkdtemp(join(tmpdir(), 'agw-it-'));
  const configPath = join(dir, 'gateway.yaml');
  const logs: string[] = [];
  const destination = logLines(logs);
  const write = async (value: unknown) => {
    const temp = `${configPath}.${Math.random().toString(16).slice(2)}.tmp`;
    await writeFile(temp, stringify(value));
    const { rename } = await import('node:fs/promises');
    await rename(temp, configPath);
  };
  const auditPath = join(dir, 'audit.log');
  const telemetry = { audit: { sink: 'file', path: auditPath } };
  await write({ version: 1, server: { host: '127.0.0.1', port: 0 }, telemetry, ...document });
  const gateway = await startGateway({
    configPath,
    logger: createPinoLogger({ level: 'debug', destination }),
    env: { DEMO_TOKEN: 'demo-upstream-token-value', ...env },
  });
  return {
    url: gateway.url,
    dir,
    configPath,
    auditPath,
    logs,
    gateway,
    writeConfig: (value) =>
      write({ version: 1, server: { host: '127.0.0.1', port: 0 }, ...(value as Record<string, unknown>) }),
    async waitForRevision(revision) {
      const deadline = Date.now() + 10_000;
      while (gateway.config.current().revision <= revision) {
        if (Date.now() > deadline)
          throw new Error(`config revision stayed at ${gateway.config.current().revision}`);
        await new Promise((r) => setTimeout(r, 20));
      }
    },
    async stop() {
      await gateway.stop();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

export async function get(
  url: string,
  key?: string,
  headers: Record<string, string> = {},
): Promise<Response> {
  return fetch(url, {
    headers: { ...(key === undefined ? {} : { authorization: `Bearer ${key}` }), ...headers },
  });
}

export const MODERN_META = {
  'io.modelcontextprotocol/protocolVersion': '2026-07-28',
  'io.modelcontextprotocol/clientInfo': { name: 'raw-test', version: '1.0.0' },
  'io.modelcontextprotocol/clientCapabilities': {},
};

/** A raw modern MCP POST with the header set derived from the body unless overridden. */
export async function mcpPost(
  url: string,
  key: string | undefined,
  body: { method: string; params?: Record<string, unknown>; id?: number | string },
  headers: Record<string, string | undefined> = {},
): Promise<Response> {
  const params: Record<string, unknown> = { _meta: MODERN_META, ...(body.params ?? {}) };
  const name =
    typeof params['name'] === 'string'
      ? params['name']
      : typeof params['uri'] === 'string'
        ? params['uri']
        : undefined;
  const base: Record<string, string | undefined> = {
    'content-type': 'application/json',
    accept: 'application/json, text/event-stream',
    'mcp-protocol-version': '2026-07-28',
    'mcp-method': body.method,
    ...(name === undefined ? {} : { 'mcp-name': name }),
    ...(key === undefined ? {} : { authorization: `Bearer ${key}` }),
    ...headers,
  };
  const sent = Object.fromEntries(
    Object.entries(base).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
  return fetch(`${url}/mcp`, {
    method: 'POST',
    headers: sent,
    body: JSON.stringify({ jsonrpc: '2.0', id: body.id ?? 1, method: body.method, params }),
  });
}

/**
 * tools/call of the modern fixture's `slow` tool (a source named `modern`) with progress token
 * `p-<id>`: answered as an event stream, progress notifications first.
 */
export function slowModernCall(
  url: string,
  key: string,
  id: number,
  args: { ms: number; steps: number },
): Promise<Response> {
  return mcpPost(url, key, {
    id,
    method: 'tools/call',
    params: { _meta: { ...MODERN_META, progressToken: `p-${id}` }, name: 'modern__slow', arguments: args },
  });
}
