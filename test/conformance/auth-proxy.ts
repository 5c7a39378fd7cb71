// The published conformance runner cannot send an Authorization header, and the gateway denies by
// default. This loopback proxy adds a Bearer key to every request and forwards it unchanged, so the
// runner exercises the gateway's real, authenticated /mcp endpoint. Host and Origin pass through
// unchanged so the DNS-rebinding checks see what the runner sent. With `pinVersion` it also rewrites
// the protocol version an `initialize` asks for: the runner's client always asks for its latest
// (2025-11-25) and accepts an older one the server answers with, so this runs every scenario in the
// other 2025 era too. `versionsSeen` lists the MCP-Protocol-Version headers that went through.
import { createServer, request, type IncomingMessage, type Server } from 'node:http';

export interface AuthProxy {
  readonly url: string;
  readonly versionsSeen: ReadonlySet<string>;
  close(): Promise<void>;
}

const MAX_BODY = 1024 * 1024;

async function bodyOf(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new Error('body too large for the test proxy');
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The body with an initialize's protocolVersion replaced by `version` (anything else unchanged). */
function pinned(body: Buffer, version: string): Buffer {
  try {
    const message = JSON.parse(body.toString('utf8')) as {
      method?: unknown;
      params?: Record<string, unknown>;
    };
    if (message.method !== 'initialize' || typeof message.params !== 'object' || message.params === null)
      return body;
    message.params['protocolVersion'] = version;
    return Buffer.from(JSON.stringify(message));
  } catch {
    return body;
  }
}

export async function startAuthProxy(
  target: string,
  key: string,
  options: { pinVersion?: string } = {},
): Promise<AuthProxy> {
  const upstream = new URL(target);
  const versionsSeen = new Set<string>();
  const server: Server = createServer((req, res) => {
    const version = req.headers['mcp-protocol-version'];
    if (typeof version === 'string') versionsSeen.add(version);
    void (async () => {
      let body = await bodyOf(req);
      if (options.pinVersion !== undefined && req.method === 'POST') body = pinned(body, options.pinVersion);
      const headers = { ...req.headers, authorization: `Bearer ${key}` };
      if (req.headers['content-length'] !== undefined) headers['content-length'] = String(body.length);
      const forwarded = request(
        { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      forwarded.on('error', () => {
        if (!res.headersSent) res.writeHead(502);
        res.end();
      });
      res.on('close', () => forwarded.destroy());
      forwarded.end(body);
    })().catch(() => {
      if (!res.headersSent) res.writeHead(400);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    versionsSeen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
