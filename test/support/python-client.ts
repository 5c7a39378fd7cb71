// Runs one of the outside Python MCP clients (test/fixtures/clients/*.py, published Python SDK from
// test/infra/ensure-python-mcp.sh) against a gateway's /mcp with a key in its environment, and
// returns the one JSON line it printed. Fails when the SDK is missing, the script fails, or the key
// shows up in anything it printed.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

const PYTHON_CACHE = process.env['AGW_PYTHON_MCP_CACHE'] ?? join(homedir(), '.cache', 'agw-python-mcp');
const PYTHON = join(PYTHON_CACHE, 'venv', 'bin', 'python');

export function runPythonClient<T>(
  script: string,
  gatewayUrl: string,
  key: string,
  mode: 'auto' | 'legacy',
  args: readonly string[],
): Promise<T> {
  if (!existsSync(join(PYTHON_CACHE, 'installed')) || !existsSync(PYTHON))
    throw new Error(
      `the Python MCP SDK is not installed in ${PYTHON_CACHE}: run \`bash test/infra/ensure-python-mcp.sh\` ` +
        '(npm test and npm run test:integration do)',
    );
  const path = resolve('test/fixtures/clients', script);
  return new Promise((done, fail) => {
    execFile(
      PYTHON,
      [path, '--url', `${gatewayUrl}/mcp`, '--mode', mode, ...args],
      { env: { PATH: process.env['PATH'] ?? '', AGW_KEY: key }, timeout: 60_000, maxBuffer: 8 << 20 },
      (error, stdout, stderr) => {
        if ((stdout + stderr).includes(key)) return fail(new Error(`${script} printed the key`));
        if (error !== null) return fail(new Error(`${script} failed: ${stdout}${stderr}`));
        done(JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as T);
      },
    );
  });
}
