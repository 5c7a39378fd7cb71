// Runs one of the outside Python MCP clients (test/fixtures/clients/*.py, published Python SDK from
// test/infra/ensure-python-mcp.sh) against a gateway's /mcp with a key in its environment, and
// returns the one JSON line it printed last. Fails when the SDK is missing, the script fails, or the
// key shows up in anything it printed. `runInteractivePythonClient` also answers the JSON lines the
// script prints while it runs (a person acting on what the client shows them).
import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';

const PYTHON_CACHE = process.env['AGW_PYTHON_MCP_CACHE'] ?? join(homedir(), '.cache', 'agw-python-mcp');
const PYTHON = join(PYTHON_CACHE, 'venv', 'bin', 'python');

function pythonCommand(
  script: string,
  gatewayUrl: string,
  mode: 'auto' | 'legacy',
  args: readonly string[],
): string[] {
  if (!existsSync(join(PYTHON_CACHE, 'installed')) || !existsSync(PYTHON))
    throw new Error(
      `the Python MCP SDK is not installed in ${PYTHON_CACHE}: run \`bash test/infra/ensure-python-mcp.sh\` ` +
        '(npm test and npm run test:integration do)',
    );
  return [resolve('test/fixtures/clients', script), '--url', `${gatewayUrl}/mcp`, '--mode', mode, ...args];
}

export function runPythonClient<T>(
  script: string,
  gatewayUrl: string,
  key: string,
  mode: 'auto' | 'legacy',
  args: readonly string[],
): Promise<T> {
  const command = pythonCommand(script, gatewayUrl, mode, args);
  return new Promise((done, fail) => {
    execFile(
      PYTHON,
      command,
      { env: { PATH: process.env['PATH'] ?? '', AGW_KEY: key }, timeout: 60_000, maxBuffer: 8 << 20 },
      (error, stdout, stderr) => {
        if ((stdout + stderr).includes(key)) return fail(new Error(`${script} printed the key`));
        if (error !== null) return fail(new Error(`${script} failed: ${stdout}${stderr}`));
        done(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as T);
      },
    );
  });
}

/**
 * `runPythonClient` for a script that prints JSON lines while it runs and waits for a line on its
 * stdin after some: `answer` gets every JSON object line, and what it resolves to (unless undefined)
 * is written back as a line. The last line is the result, as for runPythonClient; the script is
 * killed after 60 s.
 */
export function runInteractivePythonClient<T>(
  script: string,
  gatewayUrl: string,
  key: string,
  mode: 'auto' | 'legacy',
  args: readonly string[],
  answer: (line: Record<string, unknown>) => Promise<string | undefined>,
): Promise<T> {
  const command = pythonCommand(script, gatewayUrl, mode, args);
  const child = spawn(PYTHON, command, {
    env: { PATH: process.env['PATH'] ?? '', AGW_KEY: key },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const printed: string[] = [];
  let stderr = '';
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const answered: Promise<unknown>[] = [];
  let failure: Error | undefined;
  // A reply to a script that has ended goes nowhere; its exit status tells what happened.
  child.stdin.on('error', () => undefined);
  const lines = createInterface({ input: child.stdout });
  lines.on('line', (line) => {
    printed.push(line);
    if (line.includes(key)) return;
    let parsed: unknown;
    try {
      parsed = JSON.parse(line);
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null) return;
    answered.push(
      answer(parsed as Record<string, unknown>).then(
        (reply) => reply === undefined || child.stdin.write(`${reply}\n`),
        (error: unknown) => {
          failure ??= error instanceof Error ? error : new Error('answering the script failed');
          child.kill('SIGKILL');
        },
      ),
    );
  });
  return new Promise((done, fail) => {
    child.once('close', (code) => {
      clearTimeout(timer);
      void Promise.all(answered).then(() => {
        if (failure !== undefined) return fail(failure);
        const all = printed.join('\n') + stderr;
        if (all.includes(key)) return fail(new Error(`${script} printed the key`));
        if (code !== 0) return fail(new Error(`${script} exited with ${String(code)}: ${all}`));
        done(JSON.parse(printed.at(-1) ?? '') as T);
      });
    });
  });
}
