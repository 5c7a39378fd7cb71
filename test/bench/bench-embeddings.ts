// The real embedding model for a benchmark (issues 22, 23): installs the local model server if
// needed (test/infra/ensure-embeddings.sh), starts it and gives an HTTP provider for it with
// benchmark-sized limits (generous time-outs: the first pass over a corpus takes minutes).
import { execFileSync } from 'node:child_process';
import { processSecretReader } from '../../gateway/config/index.js';
import { HttpEmbeddingProvider } from '../../gateway/knowledge/index.js';
import { startEmbeddings, type RunningEmbeddings } from '../infra/embeddings-server.js';

export interface BenchEmbeddings {
  readonly server: RunningEmbeddings;
  readonly http: HttpEmbeddingProvider;
}

export async function startBenchEmbeddings(): Promise<BenchEmbeddings> {
  execFileSync('bash', ['test/infra/ensure-embeddings.sh'], { stdio: 'inherit' });
  const server = await startEmbeddings();
  const http = new HttpEmbeddingProvider(
    {
      baseUrl: `${server.url}/v1`,
      model: server.model,
      batchSize: 32,
      concurrency: 2,
      timeoutMs: 300_000,
      maxRetries: 2,
      queryTimeoutMs: 60_000,
    },
    { secrets: processSecretReader(process.env) },
  );
  return { server, http };
}
