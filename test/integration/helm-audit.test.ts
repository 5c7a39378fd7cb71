// The chart routes the audit trail (issue 29, docs/audit.md): stderr by default; with sink `file`
// the gateway writes a rotated file on an emptyDir that the `audit-log` sidecar follows to its own
// stdout. Rendered with `helm template` (offline) and validated with the gateway's own config schema.
import { execFile } from 'node:child_process';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { parse, parseAllDocuments } from 'yaml';
import { describe, expect, it } from 'vitest';
import { validateConfig } from '../../gateway/config/index.js';
import { kubeBinDir } from '../infra/control-plane.js';

const run = promisify(execFile);
const CHART = 'charts/agent-gateway';

interface Container {
  name: string;
  image?: string;
  command?: string[];
  volumeMounts?: { name: string; mountPath: string; readOnly?: boolean }[];
}
interface Rendered {
  kind?: string;
  metadata: { name: string };
  data?: Record<string, string>;
  spec?: {
    template: {
      spec: { containers: Container[]; volumes: { name: string; emptyDir?: { sizeLimit?: string } }[] };
    };
  };
}

async function render(...set: string[]) {
  const { stdout } = await run(join(kubeBinDir(), 'helm'), [
    'template',
    'agw',
    CHART,
    ...set.flatMap((value) => ['--set', value]),
  ]);
  const docs = parseAllDocuments(stdout)
    .map((d) => d.toJS() as Rendered)
    .filter((d) => d?.kind !== undefined);
  const pod = docs.find((d) => d.kind === 'Deployment' && d.metadata.name === 'agw-agent-gateway')?.spec
    ?.template.spec;
  const configMap = docs.find((d) => d.kind === 'ConfigMap' && d.metadata.name === 'agw-agent-gateway');
  const validated = validateConfig(parse(configMap?.data?.['gateway.yaml'] ?? ''));
  if (!validated.ok) throw new Error(JSON.stringify(validated.problems));
  return {
    audit: validated.config.telemetry.audit,
    containers: pod?.containers ?? [],
    volumes: pod?.volumes ?? [],
  };
}

describe('the chart routes the audit trail', () => {
  it('audit:chart-routing — stderr by default; a file on an emptyDir followed by a sidecar with sink file', async () => {
    const defaults = await render();
    expect(defaults.audit).toMatchObject({ enabled: true, sink: 'stderr' });
    expect(defaults.volumes.map((v) => v.name)).not.toContain('audit');
    expect(defaults.containers.map((c) => c.name)).toEqual(['gateway']);

    const file = await render('audit.sink=file', 'audit.file.maxFileBytes=1048576', 'audit.file.maxFiles=3');
    expect(file.audit).toMatchObject({ enabled: true, sink: 'file', maxFileBytes: 1048576, maxFiles: 3 });
    const path = file.audit.path ?? '';
    const gateway = file.containers.find((c) => c.name === 'gateway');
    expect(gateway?.volumeMounts).toContainEqual({ name: 'audit', mountPath: dirname(path) });
    const sidecar = file.containers.find((c) => c.name === 'audit-log');
    expect(sidecar?.command).toEqual(['tail', '-n', '+1', '-F', path]);
    expect(sidecar?.volumeMounts).toEqual([{ name: 'audit', mountPath: dirname(path), readOnly: true }]);
    expect(file.volumes.find((v) => v.name === 'audit')?.emptyDir?.sizeLimit).toBe('600Mi');

    const noSidecar = await render('audit.sink=file', 'audit.sidecar.enabled=false');
    expect(noSidecar.containers.map((c) => c.name)).toEqual(['gateway']);
    expect(noSidecar.volumes.map((v) => v.name)).toContain('audit');

    const off = await render('audit.enabled=false', 'audit.sink=file');
    expect(off.audit.enabled).toBe(false);
    expect(off.volumes.map((v) => v.name)).not.toContain('audit');
  });

  it('the values schema refuses an unknown sink', async () => {
    await expect(render('audit.sink=syslog')).rejects.toThrow(/sink/);
  });
});
