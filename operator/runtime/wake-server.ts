// The operator's wake endpoint (`--wake-port`, D25): `POST /wake/<namespace>/<source>` reports a
// call to a source scaled to zero, `?wait=1` also waits for a Ready pod (controllers/workload-wake.ts
// decides). Answers carry no detail beyond ready or not; bodies are not read. The gateways reach it
// through the operator's wake Service; the chart's NetworkPolicy admits only the gateway pods.
import { createServer, type Server, type ServerResponse } from 'node:http';

/** What the wake decision answers (controllers/workload-wake.ts). */
export type WakeAnswer =
  { readonly status: 200; readonly ready: boolean } | { readonly status: 401 | 504; readonly ready: false };

export type WakeHandler = (
  namespace: string,
  source: string,
  bearer: string | undefined,
  wait: boolean,
  signal: AbortSignal,
) => Promise<WakeAnswer>;

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;

function send(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(`${JSON.stringify(body)}\n`);
}

export function startWakeServer(port: number, host: string, handle: WakeHandler): Promise<Server> {
  const server = createServer((request, response) => {
    // Nothing in a body is used: drop it unread.
    request.resume();
    const [path = '', query = ''] = (request.url ?? '').split('?', 2);
    const parts = path.split('/');
    const [, root, namespace = '', source = ''] = parts;
    if (root !== 'wake' || parts.length !== 4 || !NAME.test(namespace) || !NAME.test(source))
      return send(response, 404, { error: 'not_found' });
    if (request.method !== 'POST') return send(response, 405, { error: 'method_not_allowed' });
    const header = request.headers.authorization ?? '';
    const bearer = /^Bearer ([A-Za-z0-9._~+/=-]{1,512})$/.exec(header)?.[1];
    const wait = new URLSearchParams(query).get('wait') === '1';
    const closed = new AbortController();
    response.once('close', () => closed.abort());
    handle(namespace, source, bearer, wait, closed.signal).then(
      (answer) =>
        answer.status === 401
          ? send(response, 401, { error: 'unauthorized' })
          : send(response, answer.status, { ready: answer.ready }),
      () => send(response, 503, { error: 'unavailable' }),
    );
  });
  // A request is headers only (its body is dropped): a sender that takes longer is cut off. The
  // answer to a waiting wake may take the source's whole wake time-out; that is not bounded here.
  server.headersTimeout = 10_000;
  server.requestTimeout = 15_000;
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server));
  });
}
