// Reads an OpenAI-compatible embeddings response (issue 22) and refuses one that lies: the wrong
// number of vectors, missing or repeated indices, vectors of different lengths or of the wrong
// length, numbers that are not finite. Nothing of a refused response is used, and the refusal names
// counts and lengths only (a body may echo the input texts).
import { EmbeddingFailed } from './embedding-provider.js';

const malformed = (detail: string) => new EmbeddingFailed('malformed_response', { detail });

/** The vectors of `body`, ordered by their `index`, for a request of `count` texts. */
export function readEmbeddings(body: unknown, count: number, dimensions: number | undefined): Float32Array[] {
  const data = typeof body === 'object' && body !== null ? (body as { data?: unknown }).data : undefined;
  if (!Array.isArray(data)) throw malformed('no data array');
  if (data.length !== count) throw malformed(`expected ${count} vectors, got ${data.length}`);
  const vectors: (Float32Array | undefined)[] = new Array<Float32Array | undefined>(count).fill(undefined);
  let length = dimensions;
  for (const item of data as unknown[]) {
    const { index, embedding } = (typeof item === 'object' && item !== null ? item : {}) as {
      index?: unknown;
      embedding?: unknown;
    };
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0 || index >= count)
      throw malformed('an index outside the request');
    if (vectors[index] !== undefined) throw malformed('a repeated index');
    if (!Array.isArray(embedding) || embedding.length === 0)
      throw malformed('an embedding that is not a list');
    length ??= embedding.length;
    if (embedding.length !== length)
      throw malformed(`a vector of length ${embedding.length}, expected ${length}`);
    vectors[index] = toVector(embedding as unknown[]);
  }
  return vectors as Float32Array[];
}

function toVector(values: readonly unknown[]): Float32Array {
  const vector = new Float32Array(values.length);
  for (let i = 0; i < values.length; i += 1) {
    const value = values[i];
    // A finite double may still overflow float32 (to Infinity): that is refused too.
    if (typeof value !== 'number' || !Number.isFinite(value))
      throw malformed('a value that is not a finite number');
    vector[i] = value;
    if (!Number.isFinite(vector[i])) throw malformed('a value outside the float32 range');
  }
  return vector;
}
