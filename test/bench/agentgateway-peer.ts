// agentgateway (the Rust MCP gateway of agentgateway/agentgateway) in front of one
// upstream, for the side-by-side MCP benchmark: one streamable-HTTP MCP target named `up`, tool
// names always prefixed (`up_echo`, as vMCP's), no auth, its request log off, its admin, stats and
// readiness servers on loopback ports. A 2025-06-18 request needs a session (statefulMode
// `stateful`, its default), so `startAgentgateway` opens one 2025-06-18 session that every load
// worker of that face shares, as vmcp-peer does; releases that speak 2026-07-28 (v1.4 on) serve
// those requests statelessly, without a session. Before it answers, `tools/call` must come back
// through the 2025 face with a fresh nonce echoed by the upstream; the 2026 face is measured only
// where it does the same.
// No package registry the bench uses carries it: the binary comes from AGENTGATEWAY_BIN, or
// ~/.cache/agent-gateway-bench/agentgateway, a binary built from its public source; without one
// the peer is skipped with the reason.
import { spawnSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { stringify } from 'yaml';
import { freePort } from '../infra/free-port.js';
import { legacyRequest, modernRequest, type RequestShape } from './mcp-shapes.js';
import type { RunningPeer } from './nginx-peer.js';
import { spawnPeer } from './peer-process.js';

export const AGENTGATEWAY_CACHED_BIN = join(homedir(), '.cache', 'agent-gateway-bench', 'agentgateway');
/** The tool name agentgateway gives the upstream's `echo` (target name, `_`, tool name). */
export const AGENTGATEWAY_ECHO = 'up_echo';

export interface RunningAgentgateway extends RunningPeer {
  /** The version the binary reports (`--version`), or `unknown`. */
  readonly version: string;
  /** The 2025-06-18 session every load worker of the 2025 face sends its requests in. */
  readonly sessionId: string;
  /** Whether a 2026-07-28 `tools/call` (no session) was relayed: releases before v1.4 refuse it. */
  readonly modernFace: boolean;
}

function agentgatewayBinary(): string | string[] {
  const explicit = process.env['AGENTGATEWAY_BIN'];
  if (explicit !== undefined)
    return existsSync(explicit) ? explicit : [`AGENTGATEWAY_BIN=${explicit} does not exist`];
  if (existsSync(AGENTGATEWAY_CACHED_BIN)) return AGENTGATEWAY_CACHED_BIN;
  return [
    `set AGENTGATEWAY_BIN to an agentgateway binary built from its public source (or put one at ${AGENTGATEWAY_CACHED_BIN})`,
  ];
}

function reportedVersion(binary: string): string {
  const run = spawnSync(binary, ['--version'], { encoding: 'utf8', timeout: 10_000 });
  const match = /"version":\s*"([^"]+)"/.exec(run.stdout ?? '');
  return match?.[1] ?? 'unknown';
}

/** One request; the JSON-RPC message of a JSON or an event-stream answer, and the session header. */
async function send(
  url: string,
  shape: RequestShape,
): Promise<{ status: number; message: unknown; sessionId: string | undefined }> {
  const response = await request(url, { method: 'POST', headers: shape.headers, body: shape.body(1) });
  const text = await response.body.text();
  const data = text.startsWith('{')
    ? text
    : text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => line.slice(5).trim())
        .find((line) => line.startsWith('{'));
  const sessionId = response.headers['mcp-session-id'];
  return {
    status: response.statusCode,
    message: data === undefined ? undefined : (JSON.parse(data) as unknown),
    sessionId: typeof sessionId === 'string' ? sessionId : undefined,
  };
}

async function openSession(url: string): Promise<string> {
  const init = await send(url, {
    method: 'POST',
    headers: legacyRequest('initialize', {}).headers,
    body: () =>
      JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'bench', version: '1' },
        },
      }),
  });
  if (init.status !== 200 || init.sessionId === undefined)
    throw new Error(`agentgateway initialize answered ${init.status}`);
  const initialized = legacyRequest('notifications/initialized', {}, {}, init.sessionId);
  await send(url, {
    ...initialized,
    body: () => JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  return init.sessionId;
}

/** Whether `tools/call` echo through this face came back with the nonce the upstream echoes. */
async function relays(url: string, call: (text: string) => RequestShape): Promise<boolean> {
  const nonce = randomUUID();
  const answer = await send(url, call(nonce));
  return answer.status === 200 && JSON.stringify(answer.message).includes(nonce);
}

async function writeConfig(dir: string, upstreamUrl: string, port: number): Promise<string> {
  const loopback = async () => `127.0.0.1:${await freePort()}`;
  const config = join(dir, 'agentgateway.yaml');
  await writeFile(
    config,
    stringify({
      config: {
        enableIpv6: false,
        adminAddr: await loopback(),
        statsAddr: await loopback(),
        readinessAddr: await loopback(),
        logging: { level: 'warn', filter: 'false' },
      },
      // `mcp.port` rather than v1.4's `gateways`, so that v1.3 releases read the same file.
      mcp: {
        port,
        statefulMode: 'stateful',
        prefixMode: 'always',
        targets: [{ name: 'up', mcp: { host: upstreamUrl } }],
      },
    }),
  );
  return config;
}

export async function startAgentgateway(upstreamUrl: string): Promise<RunningAgentgateway | string> {
  const binary = agentgatewayBinary();
  if (Array.isArray(binary)) return binary[0] as string;
  const version = reportedVersion(binary);
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'agw-bench-agentgateway-'));
  // Its gateway port binds every interface (its file config takes a port, no address, through v1.4);
  // nothing but the bench's echo upstream is behind it, and only while the bench runs.
  const peer = spawnPeer(binary, ['-f', await writeConfig(dir, upstreamUrl, port)], dir);
  const { child, stop } = peer;
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let attempt = 0; attempt < 200 && child.exitCode === null; attempt += 1) {
    let sessionId: string | undefined;
    try {
      sessionId = await openSession(url);
    } catch {
      // not listening yet
    }
    if (sessionId !== undefined) {
      const session = sessionId;
      const modern = await relays(url, (text) =>
        modernRequest('tools/call', { name: AGENTGATEWAY_ECHO, arguments: { text } }, AGENTGATEWAY_ECHO),
      );
      const legacy = await relays(url, (text) =>
        legacyRequest('tools/call', { name: AGENTGATEWAY_ECHO, arguments: { text } }, {}, session),
      );
      if (legacy) return { url, pid: child.pid, version, sessionId, modernFace: modern, stop };
      await stop();
      return 'agentgateway did not relay tools/call in a 2025-06-18 session';
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  return `agentgateway did not start: ${peer.stderr().trim().split('\n').slice(-2).join(' ').slice(0, 300) || 'no output'}`;
}
