// Where the monitoring test tools live (built by test/infra/ensure-promtool.sh and
// ensure-monitoring-crds.sh, run by `npm test`): promtool and the prometheus-operator CRDs.
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

export const PROMTOOL_VERSION = 'v0.316.0';
export const MONITORING_CRDS_VERSION = 'v0.95.2';

export function promtoolPath(): string {
  const path = join(
    process.env['AGW_PROMTOOL_DIR'] ?? join(homedir(), '.cache/agw-promtool'),
    PROMTOOL_VERSION,
    'promtool',
  );
  if (!existsSync(path)) throw new Error(`no promtool at ${path}: run bash test/infra/ensure-promtool.sh`);
  return path;
}

export function monitoringCrdsDir(): string {
  const dir = join(
    process.env['AGW_MONITORING_CRDS_DIR'] ?? join(homedir(), '.cache/agw-monitoring-crds'),
    MONITORING_CRDS_VERSION,
  );
  if (!existsSync(join(dir, 'monitoring.coreos.com_prometheusrules.yaml')))
    throw new Error(`no prometheus-operator CRDs in ${dir}: run bash test/infra/ensure-monitoring-crds.sh`);
  return dir;
}
