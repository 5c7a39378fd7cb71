// The local OpenAI-compatible embeddings server (test/infra/embeddings/server.py, issue 22) serving
// the real all-MiniLM-L6-v2, for integration tests and benchmarks. It needs the venv, weights and
// ONNX graph that test/infra/ensure-embeddings.sh installs (npm test runs it); the server binds
// port 0 itself and reports the port it got, so there is no race for a port.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export interface RunningEmbeddings {
  /** Base URL without the `/v1` suffix, e.g. http://127.0.0.1:40123. */
  readonly url: string;
  readonly model: string;
  readonly dimensions: number;
  stop(): Promise<void>;
}

export interface EmbeddingsOptions {
  /** When set, /v1/* requires `Authorization: Bearer <apiKey>`. */
  readonly apiKey?: string;
}

const MODEL = 'all-MiniLM-L6-v2';
const DIMENSIONS = 384;
const START_TIMEOUT_MS = 60_000;

function cacheDir(): string {
  return process.env['AGW_EMBED_CACHE'] ?? join(homedir(), '.cache', 'agw-embeddings');
}

function serverScript(): string {
  const here = dirname(fileURLToPath(import.meta.url));
  // From source (vitest) the script sits beside this file; from dist/test/infra it stays in test/.
  const candidates = [
    join(here, 'embeddings', 'server.py'),
    join(here, '..', '..', '..', 'test', 'infra', 'embeddings', 'server.py'),
  ];
  const found = candidates.find((path) => existsSync(path));
  if (found === undefined)
    throw new Error(`embeddings server.py not found (looked at ${candidates.join(', ')})`);
  return found;
}

export async function startEmbeddings(options: EmbeddingsOptions = {}): Promise<RunningEmbeddings> {
  const cache = cacheDir();
  const python = join(cache, 'venv', 'bin', 'python');
  const modelDir = join(cache, 'model');
  if (
    !existsSync(join(cache, 'ready')) ||
    !existsSync(python) ||
    !existsSync(join(modelDir, 'model.safetensors')) ||
    !existsSync(join(modelDir, 'model.onnx'))
  )
    throw new Error(
      `the embeddings test server is not installed in ${cache}: run \`bash test/infra/ensure-embeddings.sh\` ` +
        '(npm test and npm run test:integration do)',
    );
  const script = serverScript();
  const env: NodeJS.ProcessEnv = { ...process.env, PYTHONUNBUFFERED: '1' };
  delete env['AGW_EMBED_API_KEY'];
  if (options.apiKey !== undefined) env['AGW_EMBED_API_KEY'] = options.apiKey;
  const child = spawn(python, [script, '--model-dir', modelDir, '--host', '127.0.0.1', '--port', '0'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const url = await readyUrl(child);
  return {
    url,
    model: MODEL,
    dimensions: DIMENSIONS,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  };
}

function readyUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let stdout = '';
    let stderr = '';
    const fail = (why: string) => {
      clearTimeout(timer);
      child.kill('SIGKILL');
      reject(new Error(`embeddings server ${why}${stderr ? `:\n${stderr.slice(-2000)}` : ''}`));
    };
    const timer = setTimeout(() => fail(`did not start within ${START_TIMEOUT_MS} ms`), START_TIMEOUT_MS);
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
    });
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(stdout);
      if (match?.[1] !== undefined) {
        clearTimeout(timer);
        child.stdout?.removeAllListeners('data');
        child.stdout?.resume();
        resolve(match[1]);
      }
    });
    child.once('exit', (code, signal) => fail(`exited before it was ready (code ${code}, signal ${signal})`));
  });
}
