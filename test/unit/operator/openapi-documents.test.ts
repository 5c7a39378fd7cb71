// The operator's reader of OpenAPI documents (issue 44) over caches holding ConfigMaps of several
// namespaces, as a cluster-scoped operator's do: a source reads only its own namespace's ConfigMap,
// and the plan renders the text it read inline with the status counts.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { OpenApiDocuments } from '../../../operator/controllers/openapi-documents.js';
import { planWorkspace } from '../../../operator/controllers/plan/workspace-plan.js';
import { mcpSource, meta, planInput } from '../../support/operator-objects.js';

const PETSTORE = 'node_modules/@readme/oas-examples/3.0/json/petstore.json';

describe('OpenApiDocuments (operator)', () => {
  it('openapi:crd-reader-namespace — a configMapKeyRef reads the ConfigMap of the source namespace only, never a same-named one elsewhere', async () => {
    const petstore = await readFile(PETSTORE, 'utf8');
    const configMaps: Record<string, Record<string, string>> = {
      'tenant-b/docs': { 'openapi.json': petstore },
    };
    const reads: string[] = [];
    const documents = new OpenApiDocuments({
      configMap: (namespace, name) => {
        reads.push(`${namespace}/${name}`);
        const data = configMaps[`${namespace}/${name}`];
        return data === undefined ? undefined : { data };
      },
    });
    const source = mcpSource(meta('pets'), 'demo', {
      transport: 'openapi',
      openapi: { document: { configMapKeyRef: { name: 'docs', key: 'openapi.json' } } },
    });
    const missing = await documents.read('tenant-a', [source]);
    expect(reads).toEqual(['tenant-a/docs']);
    expect(missing.get('pets')).toEqual({
      problem: {
        ready: false,
        reason: 'ConfigMapNotFound',
        message: 'ConfigMap docs (spec.openapi.document.configMapKeyRef) was not found in this namespace',
      },
    });

    configMaps['tenant-a/docs'] = { 'openapi.json': petstore };
    const found = await documents.read('tenant-a', [source]);
    const plan = planWorkspace(planInput({ mcpSources: [source], openApiDocuments: found }));
    expect(plan.mcpSources.get('pets')).toMatchObject({ ready: true, reason: 'Rendered' });
    expect(plan.render.mcpSources).toEqual([
      expect.objectContaining({
        name: 'pets',
        transport: 'openapi',
        openapi: { document: { inline: petstore } },
      }),
    ]);
    expect(plan.openApi.get('pets')?.status).toMatchObject({
      document: 'configMapKeyRef',
      tools: 19,
      operations: 20,
    });
  });
});
