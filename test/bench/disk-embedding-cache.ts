// A benchmark-only embeddings decorator that keeps every vector it was given in a SQLite file under
// the embeddings cache, keyed by model and the text's sha256, so a re-run of the quality benchmark
// embeds nothing it embedded before (the test model makes tens of chunks per second on this
// machine; a corpus takes minutes the first time). The gateway's own cache is in memory only.
import { createHash } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import type { EmbeddingProvider } from '../../gateway/knowledge/index.js';

export class DiskEmbeddingCache implements EmbeddingProvider {
  private readonly db: DatabaseSync;
  /** Texts actually sent to the inner provider. */
  sent = 0;

  constructor(
    private readonly inner: EmbeddingProvider,
    // AGW_BENCH_VECTORS: another file (a private copy while another run writes the shared one).
    path = process.env['AGW_BENCH_VECTORS'] ??
      join(
        process.env['AGW_EMBED_CACHE'] ?? join(homedir(), '.cache', 'agw-embeddings'),
        'bench-vectors.sqlite',
      ),
  ) {
    mkdirSync(join(path, '..'), { recursive: true });
    // Two benchmark processes may share the file: wait for the other's write instead of failing.
    this.db = new DatabaseSync(path, { timeout: 60_000 });
    this.db.exec('CREATE TABLE IF NOT EXISTS vectors (key TEXT PRIMARY KEY, vector BLOB NOT NULL)');
  }

  get model(): string {
    return this.inner.model;
  }

  get dimensions(): number | undefined {
    return this.inner.dimensions;
  }

  private key(text: string): string {
    return createHash('sha256')
      .update(`${this.model}\u0000${this.dimensions ?? ''}\u0000${text}`)
      .digest('hex');
  }

  async embed(texts: readonly string[], signal?: AbortSignal): Promise<Float32Array[]> {
    const get = this.db.prepare('SELECT vector FROM vectors WHERE key = ?');
    const found = texts.map((text) => {
      const row = get.get(this.key(text)) as { vector: Uint8Array } | undefined;
      return row === undefined ? undefined : new Float32Array(new Uint8Array(row.vector).buffer);
    });
    const missing = [...new Set(texts.filter((_, i) => found[i] === undefined))];
    if (missing.length > 0) {
      const vectors = await this.inner.embed(missing, signal);
      this.sent += missing.length;
      const put = this.db.prepare('INSERT OR REPLACE INTO vectors (key, vector) VALUES (?, ?)');
      const byText = new Map<string, Float32Array>();
      this.db.exec('BEGIN');
      try {
        missing.forEach((text, i) => {
          const vector = vectors[i] as Float32Array;
          byText.set(text, vector);
          put.run(this.key(text), new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength));
        });
        this.db.exec('COMMIT');
      } catch (error) {
        // A transaction left open would hold the file's lock and fail every later call (and every
        // other process sharing the file).
        this.db.exec('ROLLBACK');
        throw error;
      }
      return texts.map((text, i) => found[i] ?? (byText.get(text) as Float32Array));
    }
    return found as Float32Array[];
  }

  close(): void {
    this.db.close();
  }
}
