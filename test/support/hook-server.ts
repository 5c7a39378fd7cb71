// A real guardrail hook (issue 41 part 5) for integration tests: a node:http server that checks the
// HMAC of every request as docs/security.md tells a hook to (refusing a bad one with 401), records
// what it was sent, and answers with what `answer` decides for the path and body; `STALL` leaves
// the request unanswered until the server closes.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { signature } from '../../gateway/governance/index.js';

export const STALL = Symbol('stall');

export interface HookRequest {
  readonly path: string;
  readonly verified: boolean;
  readonly body: Record<string, unknown>;
}

export interface HookServer {
  /** `http://127.0.0.1:<port>`, without a path. */
  readonly url: string;
  readonly seen: HookRequest[];
  close(): Promise<void>;
}

export type HookAnswerer = (path: string, body: Record<string, unknown>) => unknown;

function verify(secret: string, request: IncomingMessage, raw: string): boolean {
  const timestamp = String(request.headers['x-agw-timestamp'] ?? '');
  const age = Math.abs(Date.now() / 1000 - Number(timestamp));
  return age < 300 && request.headers['x-agw-signature'] === signature(secret, timestamp, raw);
}

export async function startHookServer(secret: string, answer: HookAnswerer): Promise<HookServer> {
  const seen: HookRequest[] = [];
  const stalled = new Set<ServerResponse>();
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const raw = Buffer.concat(chunks).toString('utf8');
      const body = JSON.parse(raw) as Record<string, unknown>;
      const path = request.url ?? '/';
      const verified = verify(secret, request, raw);
      seen.push({ path, verified, body });
      if (!verified) {
        response.writeHead(401).end();
        return;
      }
      const decided = answer(path, body);
      if (decided === STALL) {
        stalled.add(response);
        return;
      }
      response.writeHead(200, { 'content-type': 'application/json' });
      response.end(JSON.stringify(decided));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const url = `http://127.0.0.1:${typeof address === 'object' && address !== null ? address.port : 0}`;
  return {
    url,
    seen,
    close: async () => {
      for (const response of stalled) response.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
