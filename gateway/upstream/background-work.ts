// Work no client is waiting for (the background probes of failing sources, source-prober.ts) runs
// marked, so what only a client's call may do is not done for it: a probe does not wake a source
// scaled to zero, nor count as a call that keeps it awake (workload-waker.ts, D25).
import { AsyncLocalStorage } from 'node:async_hooks';

const marked = new AsyncLocalStorage<true>();

export function runAsBackground<T>(work: () => Promise<T>): Promise<T> {
  return marked.run(true, work);
}

export function isBackground(): boolean {
  return marked.getStore() === true;
}
