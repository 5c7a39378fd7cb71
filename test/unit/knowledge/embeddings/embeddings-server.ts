// A real OpenAI-compatible embeddings server on 127.0.0.1:0 for the HTTP provider's tests: each
// request is recorded (body, auth, arrival, in-flight count) and answered by the test's script,
// which by default answers honestly with the hashing twin's vectors.
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { hashingVector } from '../../../../gateway/knowledge/embeddings/index.js';

export interface SeenRequest {
  readonly n: number;
  readonly input: string[];
  readonly body: Record<string, unknown>;
  readonly authorization: string | undefined;
  readonly at: number;
}

export type Script = (request: SeenRequest, res: ServerResponse) => void | Promise<void>;

export const DIMS = 8;

export function honestBody(input: readonly string[], dims = DIMS): unknown {
  return {
    object: 'list',
    data: input.map((text, index) => ({
      object: 'embedding',
      index,
      embedding: [...hashingVector(text, dims)],
    })),
    model: 'test',
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

export const honest: Script = (request, res) => sendJson(res, 200, honestBody(request.input));

export class EmbeddingsServer {
  readonly seen: SeenRequest[] = [];
  script: Script = honest;
  inFlight = 0;
  maxInFlight = 0;
  private server: Server | undefined;
  port = 0;

  get baseUrl(): string {
    return `http://127.0.0.1:${this.port}/v1`;
  }

  async start(): Promise<void> {
    this.server = createServer((req, res) => void this.handle(req, res));
    await new Promise<void>((resolve) => this.server?.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as { port: number }).port;
  }

  reset(script: Script = honest): void {
    this.seen.length = 0;
    this.script = script;
    this.maxInFlight = 0;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => this.server?.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    this.inFlight += 1;
    this.maxInFlight = Math.max(this.maxInFlight, this.inFlight);
    res.on('close', () => (this.inFlight -= 1));
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/embeddings') {
      sendJson(res, 404, { error: 'not found' });
      return;
    }
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
    const request: SeenRequest = {
      n: this.seen.length,
      input: body['input'] as string[],
      body,
      authorization: req.headers.authorization,
      at: performance.now(),
    };
    this.seen.push(request);
    await this.script(request, res);
  }
}
