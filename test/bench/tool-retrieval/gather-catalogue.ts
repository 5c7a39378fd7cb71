// Regenerates catalogue.json, the tool catalogue of the issue-23 tool-retrieval set: installs each
// published MCP server of server-specs.ts at its pinned version (npm into its own prefix, PyPI into its own venv,
// both under ~/.cache/agw-tool-catalogue), starts it over stdio and keeps every tool of its raw
// `tools/list` answer (name, description, inputSchema) verbatim. Run by hand, never by CI:
//   npm run build && npm exec -- node dist/test/bench/tool-retrieval/gather-catalogue.js [server-id ...]
// The credentials in server-specs.ts are dummies: a server wants one at start, not to list tools.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { format, resolveConfig } from 'prettier';
import {
  SET_DIR,
  type CatalogueServer,
  type CatalogueTool,
  type ToolCatalogue,
} from './tool-retrieval-set.js';
import { SERVER_SPECS, type ServerSpec } from './server-specs.js';

const CACHE = join(homedir(), '.cache', 'agw-tool-catalogue');
const OUT = join(SET_DIR, 'catalogue.json');

function run(command: string, args: readonly string[]): void {
  execFileSync(command, args, { stdio: ['ignore', 'inherit', 'inherit'] });
}

/** Installs the pinned package once and returns the command that starts it. */
function install(spec: ServerSpec): string {
  const dir = join(CACHE, spec.registry, spec.id);
  if (spec.registry === 'npm') {
    const bin = join(dir, 'node_modules', '.bin', spec.bin);
    if (!existsSync(bin)) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, 'package.json'), '{ "private": true }\n');
      // Install scripts stay off: none of these servers needs one to list tools, and puppeteer's
      // would download a browser, which cannot be fetched here.
      run('npm', [
        'install',
        '--prefix',
        dir,
        '--ignore-scripts',
        '--no-audit',
        '--no-fund',
        `${spec.package}@${spec.version}`,
      ]);
    }
    return bin;
  }
  const bin = join(dir, 'bin', spec.bin);
  if (!existsSync(bin)) {
    run('python3', ['-m', 'venv', dir]);
    run(join(dir, 'bin', 'pip'), [
      'install',
      '--quiet',
      `${spec.package}==${spec.version}`,
      ...(spec.pipExtra ?? []),
    ]);
  }
  return bin;
}

function toolOf(raw: unknown): CatalogueTool {
  const tool = raw as { name: string; description?: string; inputSchema: Record<string, unknown> };
  return { name: tool.name, description: tool.description ?? '', inputSchema: tool.inputSchema };
}

interface RawListAnswer {
  readonly result?: { readonly tools?: unknown[]; readonly nextCursor?: string };
  readonly error?: { readonly message: string };
}

/**
 * Starts the server and pages through `tools/list` by raw JSON-RPC after the SDK's handshake: the
 * SDK's own listTools parses the answer and refuses schemas some servers really send (GitLab's lack
 * `type: "object"`), and the catalogue keeps what the server sent, not what a parser made of it.
 */
async function listTools(spec: ServerSpec, command: string): Promise<CatalogueTool[]> {
  const scratch = join(CACHE, 'scratch', spec.id);
  mkdirSync(scratch, { recursive: true });
  const fill = (value: string): string => value.replaceAll('{scratch}', scratch);
  // A fixed hash seed: mcp-atlassian builds a schema default from a Python set, whose order would
  // otherwise change from run to run and make regeneration noisy.
  const env: Record<string, string> = {
    PATH: process.env['PATH'] ?? '',
    HOME: homedir(),
    PYTHONHASHSEED: '0',
  };
  for (const [name, value] of Object.entries(spec.env)) env[name] = fill(value);
  const transport = new StdioClientTransport({
    command,
    args: spec.args.map(fill),
    env,
    cwd: scratch,
    stderr: 'pipe',
  });
  const stderr: string[] = [];
  transport.stderr?.on('data', (chunk: Buffer) => stderr.push(chunk.toString()));
  const client = new Client({ name: 'agw-tool-catalogue', version: '1.0.0' });
  const waiting = new Map<string, (answer: RawListAnswer) => void>();
  try {
    await client.connect(transport);
    const sdk = transport.onmessage;
    transport.onmessage = (message: JSONRPCMessage) => {
      const settle = 'id' in message ? waiting.get(String(message.id)) : undefined;
      if (settle === undefined) sdk?.(message);
      else settle(message as RawListAnswer);
    };
    const tools: CatalogueTool[] = [];
    let cursor: string | undefined;
    for (let page = 0; page === 0 || cursor !== undefined; page++) {
      const id = `catalogue-${page}`;
      const answer = new Promise<RawListAnswer>((resolve, reject) => {
        waiting.set(id, resolve);
        setTimeout(() => reject(new Error('tools/list timed out after 60 s')), 60_000).unref();
      });
      await transport.send({
        jsonrpc: '2.0',
        id,
        method: 'tools/list',
        params: cursor === undefined ? {} : { cursor },
      });
      const { result, error } = await answer;
      if (error !== undefined || !Array.isArray(result?.tools))
        throw new Error(`tools/list failed: ${error?.message ?? 'no tools array'}`);
      tools.push(...result.tools.map(toolOf));
      cursor = result.nextCursor;
    }
    return tools;
  } catch (error) {
    const tail = stderr.join('').trim().split('\n').slice(-5).join('\n');
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n  stderr: ${tail}`);
  } finally {
    await client.close();
  }
}

async function gather(spec: ServerSpec): Promise<CatalogueServer> {
  const command = install(spec);
  const tools = await listTools(spec, command);
  console.log(`${spec.id}: ${tools.length} tools from ${spec.package}@${spec.version}`);
  return {
    id: spec.id,
    package: spec.package,
    registry: spec.registry,
    version: spec.version,
    method: 'tools/list',
    tools,
  };
}

async function main(): Promise<void> {
  const only = process.argv.slice(2);
  const previous: ToolCatalogue = existsSync(OUT)
    ? (JSON.parse(readFileSync(OUT, 'utf8')) as ToolCatalogue)
    : { generated: '', servers: [] };
  const servers: CatalogueServer[] = [];
  for (const spec of SERVER_SPECS) {
    const kept = previous.servers.find((server) => server.id === spec.id);
    if (only.length > 0 && !only.includes(spec.id) && kept !== undefined) {
      servers.push(kept);
      continue;
    }
    try {
      servers.push(await gather(spec));
    } catch (error) {
      console.error(`${spec.id}: not gathered: ${error instanceof Error ? error.message : String(error)}`);
      if (kept !== undefined) servers.push(kept);
    }
  }
  const catalogue: ToolCatalogue = { generated: new Date().toISOString().slice(0, 10), servers };
  // Written as the repo's formatter writes it, so `npm run lint` (prettier --check .) accepts it.
  const options = (await resolveConfig(OUT)) ?? {};
  writeFileSync(OUT, await format(JSON.stringify(catalogue), { ...options, parser: 'json' }));
  const tools = servers.reduce((sum, server) => sum + server.tools.length, 0);
  console.log(`wrote ${OUT}: ${servers.length} servers, ${tools} tools`);
}

await main();
