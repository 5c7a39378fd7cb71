// Deterministic randomness for the approximate vector index (issue 22): the index built over the same
// vectors is the same on every process and every run, whatever order the store returned the rows in,
// so two replicas answer a query alike and a test can pin a result.

/** A seeded generator of floats in [0, 1) (mulberry32). */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A 32-bit hash of a chunk's key (FNV-1a over the doc id, then the chunk number), mixed with a seed. */
export function chunkKeyHash(docId: string, chunkNo: number, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < docId.length; i += 1) h = Math.imul(h ^ docId.charCodeAt(i), 0x01000193) >>> 0;
  h = Math.imul(h ^ (chunkNo & 0xffff), 0x01000193) >>> 0;
  h = Math.imul(h ^ (chunkNo >>> 16), 0x01000193) >>> 0;
  // A final avalanche: FNV's low bits are weak for keys that differ only at the end.
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b) >>> 0;
  h ^= h >>> 13;
  return h >>> 0;
}
