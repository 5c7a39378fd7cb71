// A signal for one upstream hop: aborted when the caller's signal aborts (the client went away) or
// when the hop's time-out passes, whichever comes first. `release` drops the timer and the
// listener as soon as the hop settles. AbortSignal.any + AbortSignal.timeout do the same but keep
// both signals and the timer alive until garbage collection, per call (issue 13: cost and RSS).
export interface Deadline {
  readonly signal: AbortSignal;
  release(): void;
}

export function deadline(parent: AbortSignal, timeoutMs: number): Deadline {
  const controller = new AbortController();
  if (parent.aborted) {
    controller.abort(parent.reason);
    return { signal: controller.signal, release: () => undefined };
  }
  const onAbort = () => controller.abort(parent.reason);
  parent.addEventListener('abort', onAbort, { once: true });
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')),
    timeoutMs,
  );
  timer.unref();
  return {
    signal: controller.signal,
    release() {
      clearTimeout(timer);
      parent.removeEventListener('abort', onAbort);
    },
  };
}

/** Runs `hop` under a deadline and releases it when the hop settles. */
export async function withDeadline<T>(
  parent: AbortSignal,
  timeoutMs: number,
  hop: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const limit = deadline(parent, timeoutMs);
  try {
    return await hop(limit.signal);
  } finally {
    limit.release();
  }
}
