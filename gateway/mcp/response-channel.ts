// How one /mcp answer is written (spec §4.2, docs/mcp-2026.md §2.3, duty 19): plain JSON unless a
// request-scoped notification (progress, log) arrives first; then the answer becomes an SSE stream
// carrying those notifications and ends with the JSON-RPC response.
import type { FastifyReply } from 'fastify';
import { markStreamed } from '../telemetry/audit-context.js';

export class ResponseChannel {
  private streaming = false;
  /** Set by `finish`: a call answered early (the shutdown cutoff) may still try to notify. */
  private finished = false;

  constructor(private readonly reply: FastifyReply) {}

  get isStreaming(): boolean {
    return this.streaming;
  }

  notify(message: Record<string, unknown>): void {
    const raw = this.reply.raw;
    if (this.finished || raw.destroyed || raw.writableEnded) return;
    if (!this.streaming) {
      this.streaming = true;
      this.reply.hijack();
      markStreamed(raw);
      raw.writeHead(200, {
        'content-type': 'text/event-stream',
        // no-store like every API answer (edge/cache-policy.ts); hijacked, so set here.
        'cache-control': 'no-store, no-transform',
        'x-accel-buffering': 'no',
        'x-request-id': this.reply.request.id,
      });
    }
    raw.write(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** Sends the final JSON-RPC message: as the last SSE event when streaming, else as a JSON body. */
  finish(status: number, body: string, headers: Readonly<Record<string, string>> = {}): FastifyReply {
    this.finished = true;
    if (!this.streaming) {
      for (const [name, value] of Object.entries(headers)) void this.reply.header(name, value);
      return this.reply.code(status).type('application/json').send(body);
    }
    const raw = this.reply.raw;
    if (!raw.destroyed && !raw.writableEnded) raw.end(`event: message\ndata: ${body}\n\n`);
    return this.reply;
  }
}
