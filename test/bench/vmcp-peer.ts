// ToolHive's Virtual MCP server (vmcp) in front of one upstream, for the side-by-side MCP benchmark:
// one static streamable-http backend, anonymous incoming auth, unauthenticated outgoing auth,
// tools prefixed `<backend>_`. vmcp is sessionful: `startVmcp` opens one 2025-06-18 session that
// every load worker then uses. The binary comes from VMCP_BIN, or GOPATH/bin, or is built once
// with `go install` (the newest version the Go module proxy builds with Go 1.26); when none of
// that works the reason is answered so the benchmark can say why the peer is skipped.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';
import { stringify } from 'yaml';
import { freePort } from '../infra/free-port.js';
import type { RunningPeer } from './nginx-peer.js';
import { spawnPeer } from './peer-process.js';

export const VMCP_MODULE = 'github.com/stacklok/toolhive/cmd/vmcp@v0.47.0';

export interface RunningVmcp extends RunningPeer {
  /** The session every load worker sends its requests in. */
  readonly sessionId: string;
}

function vmcpBinary(): string | string[] {
  const explicit = process.env['VMCP_BIN'];
  if (explicit !== undefined)
    return existsSync(explicit) ? explicit : [`VMCP_BIN=${explicit} does not exist`];
  const go = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' });
  if (go.status !== 0) return ['go is not installed, and VMCP_BIN is not set'];
  const built = join(go.stdout.trim().split(':')[0] ?? '', 'bin', 'vmcp');
  if (existsSync(built)) return built;
  console.log(`  building ToolHive vMCP: go install ${VMCP_MODULE} (a few minutes the first time) …`);
  const install = spawnSync('go', ['install', VMCP_MODULE], { encoding: 'utf8', timeout: 20 * 60_000 });
  if (install.status !== 0 || !existsSync(built))
    return [
      `go install ${VMCP_MODULE} failed: ${(install.stderr || String(install.error)).trim().slice(-300)}`,
    ];
  return built;
}

async function openSession(url: string): Promise<string> {
  const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await request(url, {
    method: 'POST',
    headers,
    body: JSON.stringify({
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
  await init.body.text();
  const sessionId = init.headers['mcp-session-id'];
  if (init.statusCode !== 200 || typeof sessionId !== 'string')
    throw new Error(`vmcp initialize answered ${init.statusCode}`);
  const initialized = await request(url, {
    method: 'POST',
    headers: { ...headers, 'mcp-protocol-version': '2025-06-18', 'mcp-session-id': sessionId },
    body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }),
  });
  await initialized.body.text();
  return sessionId;
}

export async function startVmcp(upstreamUrl: string): Promise<RunningVmcp | string> {
  const binary = vmcpBinary();
  if (Array.isArray(binary)) return binary[0] as string;
  const port = await freePort();
  const dir = await mkdtemp(join(tmpdir(), 'agw-bench-vmcp-'));
  const config = join(dir, 'vmcp.yaml');
  await writeFile(
    config,
    stringify({
      name: 'bench-vmcp',
      groupRef: 'bench',
      backends: [{ name: 'up', url: upstreamUrl, transport: 'streamable-http' }],
      incomingAuth: { type: 'anonymous' },
      outgoingAuth: { source: 'inline', default: { type: 'unauthenticated' } },
      aggregation: {
        conflictResolution: 'prefix',
        conflictResolutionConfig: { prefixFormat: '{workload}_' },
      },
    }),
  );
  const peer = spawnPeer(
    binary,
    ['serve', '--config', config, '--host', '127.0.0.1', '--port', String(port)],
    dir,
  );
  const { child, stop } = peer;
  const url = `http://127.0.0.1:${port}/mcp`;
  for (let attempt = 0; attempt < 200 && child.exitCode === null; attempt += 1) {
    try {
      const health = await request(`http://127.0.0.1:${port}/health`);
      await health.body.text();
      if (health.statusCode === 200) return { url, pid: child.pid, sessionId: await openSession(url), stop };
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  await stop();
  return `vmcp did not start: ${peer.stderr().trim().split('\n').slice(-2).join(' ').slice(0, 300) || 'no output'}`;
}
