// Scale to zero, the gateway's half (issue 40 item 5, D25 and D10). A source the operator runs with
// spec.run.scaleToZero carries a wake mark: the operator endpoint that records calls and scales the
// Deployment (gateways never write to the Kubernetes API, D10). Every request to the source reports
// a call there at most once per touch interval, without waiting; a request whose connection is
// refused (a Service without Ready pods rejects at once) asks the operator to wake the server and
// waits until it says a pod is Ready, then is sent again, within the mark's wake time-out. Only a
// refused connection is retried: nothing reached the server, so nothing runs twice. The operator
// authenticates the gateway with the source's own token (the bearer the bridge checks), so the
// credential reaches no one new. Nothing about the request (its body, its tool) goes to the operator.
import type { WorkloadMark } from '../config/index.js';
import { isBackground } from './background-work.js';
import type { TokenSource } from './token-source.js';

export type WakeMark = NonNullable<WorkloadMark['wake']>;

/** The wake did not bring a Ready pod in time, or the operator refused it (fixed words, no URL). */
export class WorkloadWakeError extends Error {
  readonly code: 'AGW_WAKE_TIMEOUT' | 'AGW_WAKE_REFUSED';
  constructor(code: WorkloadWakeError['code'], message: string) {
    super(message);
    this.name = 'WorkloadWakeError';
    this.code = code;
  }
}

// Connections that were never made: the request cannot have reached a server. (A reset is not one:
// the server may have read the request before it went away.)
const REFUSED = new Set(['ECONNREFUSED', 'EHOSTUNREACH', 'ENETUNREACH']);
/** Between sends after a wake: kube-proxy learns of the new endpoint a moment after it is Ready. */
const RESEND_GAP_MS = 200;

/** Whether `error` (or a cause) is a connection the server's address refused. */
export function isRefusedConnection(error: unknown): boolean {
  let current: unknown = error;
  for (let depth = 0; depth < 6 && typeof current === 'object' && current !== null; depth += 1) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && REFUSED.has(code)) return true;
    current = (current as { cause?: unknown }).cause;
  }
  return false;
}

function abortable(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted === true) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal?.reason as Error);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

export interface WakerOptions {
  /** Plain fetch to the operator (its address is the operator's, not a tenant's: no reach guard). */
  readonly fetch?: typeof fetch;
  readonly now?: () => number;
}

/** One source's waker, shared by every connection to it on this replica. */
export class WorkloadWaker {
  private lastTouch = -Infinity;
  private waking: Promise<void> | undefined;
  private readonly fetch: typeof fetch;
  private readonly now: () => number;

  constructor(
    private readonly mark: WakeMark,
    options: WakerOptions = {},
  ) {
    this.fetch = options.fetch ?? fetch;
    this.now = options.now ?? Date.now;
  }

  /** Reports a call, at most once per touch interval; never waits, never fails the call. */
  touch(credentials: TokenSource): void {
    const now = this.now();
    if (now - this.lastTouch < this.mark.touchIntervalMs) return;
    this.lastTouch = now;
    void this.post(credentials, false, AbortSignal.timeout(10_000)).catch(() => {
      // The next interval tries again; a missed report at worst lets the server sleep early.
      this.lastTouch = -Infinity;
    });
  }

  /** Wakes the server and resolves once the operator reports a Ready pod; one wake in flight. */
  wake(credentials: TokenSource, signal?: AbortSignal): Promise<void> {
    const waking = (this.waking ??= this.post(
      credentials,
      true,
      AbortSignal.timeout(this.mark.timeoutMs + 5000),
    ).finally(() => {
      this.waking = undefined;
    }));
    if (signal === undefined) return waking;
    // The caller may give up first; the wake goes on for the next one.
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      const onAbort = () => reject(signal.reason as Error);
      signal.addEventListener('abort', onAbort, { once: true });
      waking.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
    });
  }

  /** Sends `send` and, when its connection is refused, wakes the server and sends it again until it
   * is answered or the wake time-out passes. */
  async around<T>(send: () => Promise<T>, credentials: TokenSource, signal?: AbortSignal): Promise<T> {
    // A background probe neither keeps the server awake nor wakes it: only a client's call does.
    if (isBackground()) return send();
    this.touch(credentials);
    try {
      return await send();
    } catch (error) {
      if (!isRefusedConnection(error) || signal?.aborted === true) throw error;
    }
    const deadline = this.now() + this.mark.timeoutMs;
    await this.wake(credentials, signal);
    for (;;) {
      try {
        return await send();
      } catch (error) {
        if (!isRefusedConnection(error) || this.now() + RESEND_GAP_MS > deadline) throw error;
      }
      await abortable(RESEND_GAP_MS, signal);
    }
  }

  /** `fetch` with `around` on every request (the body must be replayable: the SDK sends strings). */
  wrapFetch(inner: typeof fetch, credentials: TokenSource): typeof fetch {
    return (input, init) => this.around(() => inner(input, init), credentials, init?.signal ?? undefined);
  }

  private async post(credentials: TokenSource, wait: boolean, signal: AbortSignal): Promise<void> {
    this.lastTouch = this.now();
    const headers = { ...(await credentials.headers()), 'content-type': 'application/json' };
    let response: Response;
    try {
      response = await this.fetch(`${this.mark.url}${wait ? '?wait=1' : ''}`, {
        method: 'POST',
        headers,
        body: '{}',
        signal,
      });
    } catch (error) {
      if (!wait) throw error;
      throw new WorkloadWakeError(
        signal.aborted ? 'AGW_WAKE_TIMEOUT' : 'AGW_WAKE_REFUSED',
        signal.aborted
          ? `the server is scaled to zero and did not become ready within ${Math.round(this.mark.timeoutMs / 1000)} s`
          : 'the server is scaled to zero and the operator could not be reached to wake it',
      );
    }
    await response.body?.cancel();
    if (response.ok) return;
    throw new WorkloadWakeError(
      response.status === 504 ? 'AGW_WAKE_TIMEOUT' : 'AGW_WAKE_REFUSED',
      response.status === 504
        ? `the server is scaled to zero and did not become ready within ${Math.round(this.mark.timeoutMs / 1000)} s`
        : `the operator refused to wake the server (HTTP ${response.status})`,
    );
  }
}

/** The wakers of this replica, one per wake endpoint (so one per source). */
export class WorkloadWakers {
  private readonly wakers = new Map<string, WorkloadWaker>();

  constructor(private readonly options: WakerOptions = {}) {}

  /** Keyed by the whole mark: a changed time-out or interval gets a waker of its own. */
  of(mark: WakeMark): WorkloadWaker {
    const key = `${mark.url} ${mark.timeoutMs} ${mark.touchIntervalMs}`;
    let waker = this.wakers.get(key);
    if (waker === undefined) {
      waker = new WorkloadWaker(mark, this.options);
      this.wakers.set(key, waker);
    }
    return waker;
  }
}
