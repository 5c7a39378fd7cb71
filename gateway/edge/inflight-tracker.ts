// Counts requests in flight, including hijacked (streamed) ones that fastify no longer tracks, so a
// shutdown can wait for them to drain before closing whatever connections remain (STYLE 10).
import type { FastifyInstance } from 'fastify';

export class InflightTracker {
  private count = 0;
  private waiters: (() => void)[] = [];

  attach(app: FastifyInstance): void {
    app.addHook('onRequest', (_request, reply, next) => {
      this.count += 1;
      let done = false;
      reply.raw.once('close', () => {
        if (done) return;
        done = true;
        this.count -= 1;
        if (this.count === 0) for (const wake of this.waiters.splice(0)) wake();
      });
      next();
    });
  }

  get inflight(): number {
    return this.count;
  }

  /** Resolves when no request is in flight. */
  drained(): Promise<void> {
    if (this.count === 0) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push(resolve));
  }
}
