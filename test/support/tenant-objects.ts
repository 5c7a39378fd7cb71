// Tenant resources in bulk for tests and benchmarks: `workspaces` Workspaces named
// `<workspacePrefix>-<w>`, each with `keysEach` ApiKeys named `<keyPrefix>-<w>-<k>`, as one List body
// for `kubectl apply -f -`.
export function workspacesWithKeys(
  workspaces: number,
  keysEach: number,
  workspacePrefix = 'ws',
  keyPrefix = 'key',
): { apiVersion: 'v1'; kind: 'List'; items: unknown[] } {
  const items: unknown[] = [];
  for (let w = 0; w < workspaces; w += 1) {
    items.push({
      apiVersion: 'agentgateway.dev/v1alpha1',
      kind: 'Workspace',
      metadata: { name: `${workspacePrefix}-${w}` },
      spec: {},
    });
    for (let k = 0; k < keysEach; k += 1)
      items.push({
        apiVersion: 'agentgateway.dev/v1alpha1',
        kind: 'ApiKey',
        metadata: { name: `${keyPrefix}-${w}-${k}` },
        spec: { workspaceRef: { name: `${workspacePrefix}-${w}` } },
      });
  }
  return { apiVersion: 'v1', kind: 'List', items };
}

/** How many ApiKeys report Ready=True in the output of
 * `kubectl get apikeys -o jsonpath=` + READY_JSONPATH. */
export const READY_JSONPATH = '{range .items[*]}{.status.conditions[0].status}{"\\n"}{end}';

export function readyCount(output: string): number {
  return output.split('\n').filter((line) => line === 'True').length;
}
