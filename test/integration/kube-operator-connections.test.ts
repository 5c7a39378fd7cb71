// The operator's API traffic on a real kube-apiserver (issue 26): client-node 2.0.1 opened a new TLS
// connection for every call, so a bulk apply left hundreds of HTTP/2 sessions open at once and the
// operator's memory followed. With one dispatcher per KubeConfig, reconciling several workspaces
// (key Secrets issued, parts applied, status and Events written, six watches) takes a few.
import { subscribe, unsubscribe } from 'node:diagnostics_channel';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_TENANT_POLICY } from '../../gateway/config/index.js';
import { createPinoLogger } from '../../gateway/telemetry/index.js';
import { runOperator, type RunningOperator } from '../../operator/operator-main.js';
import { freshNamespace, kubeConfig, kubectlOk } from '../support/kube-harness.js';
import { READY_JSONPATH, readyCount, workspacesWithKeys } from '../support/tenant-objects.js';
import { until } from '../support/until.js';

const WORKSPACES = 4;
const KEYS = 5;
// Namespace scope (the chart's default): resources, key Secrets and rendered parts in one namespace,
// so this operator never touches what other test files apply.
let namespace: string;
let operator: RunningOperator | undefined;
let connections = 0;
const onConnected = () => (connections += 1);

beforeAll(async () => {
  namespace = await freshNamespace('conn');
  subscribe('undici:client:connected', onConnected);
});

afterAll(async () => {
  unsubscribe('undici:client:connected', onConnected);
  await operator?.stop();
});

describe('operator connections', () => {
  it('operator:one-connection — reconciling 4 Workspaces with 5 ApiKeys each takes at most 3 connections to the apiserver (one per API call before)', async () => {
    await kubectlOk(
      ['apply', '--server-side', '-n', namespace, '-f', '-'],
      JSON.stringify(workspacesWithKeys(WORKSPACES, KEYS, 'conn', 'conn')),
    );
    operator = runOperator({
      kubeConfig: kubeConfig(),
      gatewayNamespace: namespace,
      watchNamespace: namespace,
      policy: DEFAULT_TENANT_POLICY,
      logger: createPinoLogger({ level: 'silent' }),
    });
    await until(
      'every ApiKey Ready',
      async () => {
        const out = await kubectlOk(['get', 'apikeys', '-n', namespace, '-o', `jsonpath=${READY_JSONPATH}`]);
        return readyCount(out) === WORKSPACES * KEYS ? true : undefined;
      },
      60_000,
      200,
    );
    await operator.idle();
    const secrets = await kubectlOk(['get', 'secrets', '-n', namespace, '-o', 'name']);
    expect(secrets.split('\n').filter((name) => name.endsWith('-key'))).toHaveLength(WORKSPACES * KEYS);
    // 20 key Secrets, 20 + 4 status patches, their Events, the rendered parts, 6 lists and watches,
    // the Lease: one connection serves them all (the rest allow for a watch's reconnect).
    expect(connections).toBeGreaterThan(0);
    expect(connections).toBeLessThanOrEqual(3);
  });
});
