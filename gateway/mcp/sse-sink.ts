// A notification stream's SSE response (issue 24): the headers on the first write, one `message`
// event per JSON-RPC message, `:` keep-alive comments, and a count of events written while the client
// is not reading (reset when Node's buffer drains), which the stream bounds.
import type { FastifyReply } from 'fastify';
import type { StreamSink } from '../subscriptions/index.js';
import { markStreamed } from '../telemetry/audit-context.js';

export class SseSink implements StreamSink {
  private started = false;
  private waiting = 0;

  constructor(private readonly reply: FastifyReply) {
    reply.raw.on('drain', () => {
      this.waiting = 0;
    });
  }

  get backlog(): number {
    return this.waiting;
  }

  private get gone(): boolean {
    const raw = this.reply.raw;
    return raw.destroyed || raw.writableEnded;
  }

  private start(): void {
    if (this.started) return;
    this.started = true;
    this.reply.hijack();
    markStreamed(this.reply.raw);
    this.reply.raw.writeHead(200, {
      'content-type': 'text/event-stream',
      // no-store like every API answer (edge/cache-policy.ts); hijacked, so set here.
      'cache-control': 'no-store, no-transform',
      'x-accel-buffering': 'no',
      'x-request-id': this.reply.request.id,
    });
  }

  private put(chunk: string): boolean {
    if (this.gone) return false;
    this.start();
    const raw = this.reply.raw;
    if (raw.writableNeedDrain) this.waiting += 1;
    const flushed = raw.write(chunk);
    if (!flushed && this.waiting === 0) this.waiting = 1;
    return flushed;
  }

  write(message: Record<string, unknown>): boolean {
    return this.put(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  }

  /** Also opens the stream (the legacy GET stream starts with one). A keep-alive is not counted and
   * not written to a client that is not reading. */
  comment(): void {
    if (this.gone || this.reply.raw.writableNeedDrain) return;
    this.start();
    this.reply.raw.write(': keepalive\n\n');
  }

  end(last: Record<string, unknown> | undefined): void {
    if (this.gone) return;
    this.start();
    this.reply.raw.end(last === undefined ? undefined : `event: message\ndata: ${JSON.stringify(last)}\n\n`);
  }

  destroy(): void {
    this.reply.raw.destroy();
  }

  onClose(listener: () => void): void {
    this.reply.raw.once('close', listener);
  }
}
