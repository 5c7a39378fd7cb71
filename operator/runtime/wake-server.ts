// The operator's endpoint for the gateways (`--wake-port`, D25): `POST /wake/<namespace>/<source>`
// reports a call to a source scaled to zero, `?wait=1` also waits for a Ready pod
// (controllers/workload-wake.ts decides; answers carry no detail beyond ready or not; bodies are not
// read). `POST /pins/<namespace>/<source>` carries a source's pinning report, a JSON body of at most
// 256 KiB (controllers/pin-reports.ts decides). The gateways reach it through the operator's wake
// Service; the chart's NetworkPolicy admits only the gateway pods.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';

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

/** Decides a pinning report (controllers/pin-reports.ts). */
export type PinReportHandler = (
  namespace: string,
  source: string,
  bearer: string | undefined,
  body: unknown,
) => Promise<{ readonly status: number }>;

const NAME = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/;
const MAX_REPORT_BYTES = 256 * 1024;

/** A request's JSON body, or undefined when it is too large or not JSON. */
async function jsonBody(request: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > MAX_REPORT_BYTES) return undefined;
    chunks.push(chunk);
  }
  try {
    return JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown;
  } catch {
    return undefined;
  }
}

function answerPins(
  request: IncomingMessage,
  response: ServerResponse,
  namespace: string,
  source: string,
  pins: PinReportHandler,
): void {
  // Service account tokens are JWTs, longer than the wake tokens.
  const bearer = /^Bearer ([A-Za-z0-9._~+/=-]{1,4096})$/.exec(request.headers.authorization ?? '')?.[1];
  jsonBody(request)
    .then((body) => (body === undefined ? { status: 400 } : pins(namespace, source, bearer, body)))
    .then(
      ({ status }) => send(response, status, status === 202 ? { accepted: true } : { error: String(status) }),
      () => send(response, 503, { error: 'unavailable' }),
    );
}

function send(response: ServerResponse, status: number, body: object): void {
  response.writeHead(status, { 'content-type': 'application/json', 'cache-control': 'no-store' });
  response.end(`${JSON.stringify(body)}\n`);
}

export function startWakeServer(
  port: number,
  host: string,
  handle: WakeHandler,
  pins?: PinReportHandler,
): Promise<Server> {
  const server = createServer((request, response) => {
    const [path = '', query = ''] = (request.url ?? '').split('?', 2);
    const parts = path.split('/');
    const [, root, namespace = '', source = ''] = parts;
    const known = root === 'wake' || (root === 'pins' && pins !== undefined);
    if (!known || parts.length !== 4 || !NAME.test(namespace) || !NAME.test(source)) {
      request.resume();
      return send(response, 404, { error: 'not_found' });
    }
    if (request.method !== 'POST') {
      request.resume();
      return send(response, 405, { error: 'method_not_allowed' });
    }
    if (root === 'pins' && pins !== undefined) return answerPins(request, response, namespace, source, pins);
    // Nothing in a wake's body is used: drop it unread.
    request.resume();
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
