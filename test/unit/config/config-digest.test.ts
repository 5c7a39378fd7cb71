// agw_config_digest's value (issue 25): equal for replicas serving the same config, whatever order
// their workspaces arrived in and wherever they listen; different when what they serve differs.
import { describe, expect, it } from 'vitest';
import {
  configDigest,
  validateConfig,
  type ConfigSnapshot,
  type GatewayConfig,
} from '../../../gateway/config/index.js';

function config(extra: Record<string, unknown> = {}, server: Record<string, unknown> = {}): GatewayConfig {
  const result = validateConfig({ version: 1, server, workspaces: [{ name: 'acme', ...extra }] });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.config;
}
const snapshot = (
  c: GatewayConfig,
  revision: number,
  workspaceRevisions?: [string, string][],
): ConfigSnapshot => ({
  config: c,
  revision,
  loadedAt: new Date(),
  ...(workspaceRevisions === undefined ? {} : { workspaceRevisions: new Map(workspaceRevisions) }),
});

describe('configDigest', () => {
  it('config:digest — same config, same digest across revisions and listening addresses; a change moves it', () => {
    const base = configDigest(snapshot(config(), 1));
    expect(Number.isSafeInteger(base)).toBe(true);
    expect(configDigest(snapshot(config({}, { host: '0.0.0.0', port: 9999 }), 7))).toBe(base);
    expect(configDigest(snapshot(config({ displayName: 'ACME' }), 1))).not.toBe(base);
  });

  it('config:digest-kube — the Kubernetes shape digests the rendered revisions, in any arrival order', () => {
    const c = config();
    const one = configDigest(
      snapshot(c, 3, [
        ['acme', 'r1'],
        ['beta', 'r9'],
      ]),
    );
    expect(
      configDigest(
        snapshot(c, 1, [
          ['beta', 'r9'],
          ['acme', 'r1'],
        ]),
      ),
    ).toBe(one);
    expect(
      configDigest(
        snapshot(c, 3, [
          ['acme', 'r2'],
          ['beta', 'r9'],
        ]),
      ),
    ).not.toBe(one);
  });
});
