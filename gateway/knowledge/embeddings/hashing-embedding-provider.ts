// The in-memory twin of the embeddings provider (STYLE 8, issue 22): feature hashing of lower-cased
// words into a signed, L2-normalised vector, so the same text always gives the same vector and texts
// sharing words are closer than texts that share none. It records what it was asked, for tests. Not
// a language model: unit tests only; the integration tests use a real one.
import { EmbeddingFailed, type EmbeddingProvider } from './embedding-provider.js';

export class HashingEmbeddingProvider implements EmbeddingProvider {
  readonly model: string;
  readonly dimensions: number;
  /** The texts of each embed() call, in order. */
  readonly calls: string[][] = [];

  constructor(options: { readonly model?: string; readonly dimensions?: number } = {}) {
    this.model = options.model ?? 'hashing-v1';
    this.dimensions = options.dimensions ?? 64;
  }

  embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    if (signal?.aborted === true) return Promise.reject(new EmbeddingFailed('aborted'));
    this.calls.push([...texts]);
    return Promise.resolve(texts.map((text) => hashingVector(text, this.dimensions)));
  }
}

export function hashingVector(text: string, dimensions: number): Float32Array {
  const vector = new Float32Array(dimensions);
  for (const word of text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []) {
    const hash = fnv1a(word);
    const slot = hash % dimensions;
    vector[slot] = (vector[slot] as number) + ((hash & 0x8000_0000) === 0 ? 1 : -1);
  }
  let norm = 0;
  for (const value of vector) norm += value * value;
  // No words, or words that cancel out: a fixed unit vector keeps every output normalised.
  if (norm === 0) {
    vector[0] = 1;
    return vector;
  }
  const scale = 1 / Math.sqrt(norm);
  for (let i = 0; i < dimensions; i += 1) vector[i] = (vector[i] as number) * scale;
  return vector;
}

function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}
