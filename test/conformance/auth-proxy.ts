// The published conformance runner cannot send an Authorization header, and the gateway denies by
// default. This loopback proxy adds a Bearer key to every request and forwards it unchanged, so the
// runner exercises the gateway's real, authenticated /mcp endpoint. Host and Origin pass through
// unchanged so the DNS-rebinding checks see what the runner sent.
import { createServer, request, type Server } from 'node:http';

export interface AuthProxy {
  readonly url: string;
  close(): Promise<void>;
}

export async function startAuthProxy(target: string, key: string): Promise<AuthProxy> {
  const upstream = new URL(target);
  const server: Server = createServer((req, res) => {
    const forwarded = request(
      {
        host: upstream.hostname,
        port: upstream.port,
        method: req.method,
        path: req.url,
        headers: { ...req.headers, authorization: `Bearer ${key}` },
      },
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
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : 0;
  return {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
