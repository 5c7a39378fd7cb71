// How far V8 lets the old generation grow past what was live after the last full collection (issue
// 45). Under sustained load V8's own choice (up to 4× when collections are cheap) took a relaying
// gateway from 125 to 285 MiB resident for garbage it would collect anyway; 1.5× held it at 184 MiB
// at the same throughput (docs/benchmarks.md). The flag cannot be given in NODE_OPTIONS, so the
// long-running commands set it themselves, first thing. AGW_HEAP_GROWING_PERCENT overrides it; 0
// leaves V8's own heuristics.
import { setFlagsFromString } from 'node:v8';

export const DEFAULT_HEAP_GROWING_PERCENT = 50;

/** The percent in effect: the variable's (a whole number 0–400), else the default. */
export function heapGrowingPercent(env: NodeJS.ProcessEnv): number {
  const text = env['AGW_HEAP_GROWING_PERCENT'];
  if (text === undefined || text === '') return DEFAULT_HEAP_GROWING_PERCENT;
  if (!/^\d{1,3}$/.test(text) || Number(text) > 400)
    throw new RangeError(
      `AGW_HEAP_GROWING_PERCENT must be a whole number from 0 to 400 (0: V8's own choice); got ${JSON.stringify(text.slice(0, 20))}`,
    );
  return Number(text);
}

/** Sets V8's heap growing factor for this process; returns the percent set (0: none set). Throws a
 * RangeError naming the variable when its value is not one. */
export function limitHeapGrowth(env: NodeJS.ProcessEnv = process.env): number {
  const percent = heapGrowingPercent(env);
  if (percent > 0) setFlagsFromString(`--heap-growing-percent=${percent}`);
  return percent;
}
