// The HTTP half of a graceful shutdown (issue 21, STYLE 10), run once readiness is false. A router
// keeps sending to a replica for a moment after it goes unready, and a client that sends on an idle
// keep-alive socket just as the server closes it gets a reset (fatal for a POST). So, until the grace
// runs out, the drain closes no socket a client may be sending on: every response from then on says
// `Connection: close`, the server keeps accepting for `drainDelayMs`, then stops listening and waits
// for its connections to end (idle ones on the keep-alive timeout Node advertised to their clients;
// with no drain delay, a local gateway, idle ones are closed at once); calls still running shortly
// before the grace runs out are answered (the cutoff signal), and only then is the rest closed.
import type { Server, ServerResponse } from 'node:http';
import { Server as NetServer } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { InflightTracker } from './inflight-tracker.js';

export interface DrainSettings {
  /** Keep accepting and serving this long after the drain begins (routers catch up). */
  readonly drainDelayMs: number;
  /** The whole drain ends by then: whatever is still open is closed. */
  readonly shutdownGraceMs: number;
}

/** Time kept at the end of the grace: half for the calls answered by the cutoff to reach their
 * clients, half for the rest of the shutdown (upstream sessions, Redis, telemetry). */
export function cutoffReserveMs(shutdownGraceMs: number): number {
  return Math.min(1000, Math.floor(shutdownGraceMs / 5));
}

function closeAfter(response: ServerResponse): void {
  // Node closes the socket once this response is sent; the client knows not to reuse it.
  if (!response.headersSent) response.setHeader('connection', 'close');
}

export class ConnectionDrain {
  private draining = false;
  private server: Server | undefined;
  /** Responses begun before the drain whose headers may not be written yet. */
  private readonly unsent = new Set<ServerResponse>();
  private readonly cutoffs = new AbortController();

  /** Aborted shortly before the grace runs out: handlers still running answer at once. */
  get cutoff(): AbortSignal {
    return this.cutoffs.signal;
  }

  attach(server: Server): void {
    this.server = server;
    // Ahead of fastify's listener, so the header is set before any handler can write.
    server.prependListener('request', (_request, response: ServerResponse) => {
      if (this.draining) return closeAfter(response);
      this.unsent.add(response);
      response.once('close', () => this.unsent.delete(response));
    });
  }

  /** Runs the drain; resolves before `shutdownGraceMs` has passed, every connection closed. */
  async run(settings: DrainSettings, inflight: InflightTracker): Promise<void> {
    const server = this.server;
    if (server === undefined) return;
    const started = Date.now();
    // Unreferenced: a timer the drain no longer waits for must not hold the process open.
    const until = (offsetMs: number) =>
      sleep(Math.max(0, started + offsetMs - Date.now()), undefined, { ref: false });
    const grace = settings.shutdownGraceMs;
    const reserve = cutoffReserveMs(grace);
    // Each phase's end, in ms from the start: accepting, waiting, answering what is left.
    const acceptUntil = settings.drainDelayMs;
    const cutoffAt = Math.max(acceptUntil, grace - reserve);
    const closeBy = Math.max(cutoffAt, grace - reserve / 2);

    this.draining = true;
    for (const response of this.unsent) closeAfter(response);
    this.unsent.clear();
    await until(acceptUntil);

    // Stop listening without http.Server#close, which would also close idle keep-alive sockets a
    // client may be sending on right now; they end on their advertised keep-alive timeout instead.
    const connectionsEnded = new Promise<void>((resolve) => {
      NetServer.prototype.close.call(server, () => resolve());
    });
    // Without a drain delay nothing routes here (a local gateway): stop as soon as requests are done.
    if (acceptUntil === 0) server.closeIdleConnections();
    await Promise.race([acceptUntil === 0 ? inflight.drained() : connectionsEnded, until(cutoffAt)]);

    if (inflight.inflight > 0) {
      this.cutoffs.abort(new Error('the shutdown grace is running out'));
      await Promise.race([inflight.drained(), until(closeBy)]);
    }
    server.closeAllConnections();
  }
}
