// The one error a reach refusal raises, wherever it is decided: a connection the network policy
// does not allow, a file outside its root. Its message names the target the tenant wrote and the
// reason in words, never the address a name resolved to (no map of internal DNS for tenants).
import { describeDenial, type ReachDenial } from './reach-policy.js';

export class ReachDeniedError extends Error {
  /** A socket-style code, so error classifiers that look at `code` see a refusal, not a fault. */
  readonly code = 'EREACHDENIED';

  constructor(
    readonly reason: ReachDenial,
    /** What the tenant named: a host, a host:port or a path. */
    readonly target: string,
  ) {
    super(`${target} is not allowed by the gateway's tenant policy: ${describeDenial(reason)}`);
    this.name = 'ReachDeniedError';
  }
}

/** The ReachDeniedError somewhere in an error's cause chain (fetch wraps connect errors). */
export function findReachDenied(error: unknown): ReachDeniedError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth += 1) {
    if (current instanceof ReachDeniedError) return current;
    if (current instanceof AggregateError)
      for (const inner of current.errors as unknown[]) {
        const found = findReachDenied(inner);
        if (found !== undefined) return found;
      }
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
