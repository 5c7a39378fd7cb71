// Long CPU work run in short event-loop turns (issue 22): building the vector index over 100k rows
// takes seconds, and one request must never wait behind it. The work is a generator that yields
// every millisecond or so; this runs it for at most a slice, then lets I/O in, until it is done.
import { setImmediate as nextTurn } from 'node:timers/promises';

/** Runs `work` to its end in slices of about `sliceMs`; undefined once `cancelled()` says so. */
export async function runInSlices<T>(
  work: Generator<void, T>,
  sliceMs: number,
  cancelled: () => boolean,
): Promise<T | undefined> {
  for (;;) {
    const until = performance.now() + sliceMs;
    for (;;) {
      const step = work.next();
      if (step.done === true) return step.value;
      if (performance.now() >= until) break;
    }
    await nextTurn();
    if (cancelled()) {
      work.return(undefined as T);
      return undefined;
    }
  }
}

/** Runs `work` to its end at once (tests, and a store asked to build inline). */
export function runNow<T>(work: Generator<void, T>): T {
  for (;;) {
    const step = work.next();
    if (step.done === true) return step.value;
  }
}
