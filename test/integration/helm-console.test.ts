// The chart's console value (issue 25): off by default (the rendered config has the console off),
// on it renders `server.console.enabled: true`, which the gateway's own schema accepts; the values
// schema refuses anything but a boolean. Rendered with `helm template` (offline).
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { expect, it } from 'vitest';
import { validateConfig } from '../../gateway/config/index.js';
import { kubeBinDir } from '../infra/control-plane.js';

const run = promisify(execFile);

async function renderServer(...set: string[]) {
  const { stdout } = await run(join(kubeBinDir(), 'helm'), [
    'template',
    'agw',
    'charts/agent-gateway',
    ...set.flatMap((value) => ['--set', value]),
  ]);
  const configMap = parseAllDocuments(stdout)
    .map((d) => d.toJS() as { kind?: string; metadata: { name: string }; data?: Record<string, string> })
    .find((d) => d?.kind === 'ConfigMap' && d.metadata.name === 'agw-agent-gateway');
  const validated = validateConfig(parse(configMap?.data?.['gateway.yaml'] ?? ''));
  if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
  return validated.config.server;
}

it('helm:console-value — console.enabled is off by default and renders server.console.enabled; the values schema wants a boolean', async () => {
  expect((await renderServer()).console).toEqual({ enabled: false });
  expect((await renderServer('console.enabled=true')).console).toEqual({ enabled: true });
  await expect(renderServer('console.enabled=yes')).rejects.toThrow(/console/);
  await expect(renderServer('console.path=/ui')).rejects.toThrow(/path/);
});
