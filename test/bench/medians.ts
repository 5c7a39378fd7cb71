// The middle of a benchmark's interleaved rounds: a number's median, and the load result (or any
// measured point) whose throughput is the median of its rounds. Shared by the benches that repeat
// each point in rounds.

/** The median of `values` (the upper middle of an even count); undefined when there are none. */
export function middle(values: readonly number[]): number | undefined {
  if (values.length === 0) return undefined;
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
}

/** The point whose req/s is the median of its rounds (the upper middle of an even count). */
export function medianByRate<T extends { readonly rps: number }>(results: readonly T[]): T {
  const sorted = [...results].sort((a, b) => a.rps - b.rps);
  return sorted[Math.floor(sorted.length / 2)] as T;
}
