// One CustomResourceDefinition (apiextensions.k8s.io/v1) per kind, generated from the kind's zod
// schemas (the same ones the config contract builds on) plus its hand-written CEL rules. The result
// is checked into crds/; a test fails when regeneration would change it.
import { z } from 'zod';
import { CATEGORY, GROUP, VERSION, type CrdDefinition } from '../api/v1alpha1/index.js';
import { structural, type JsonSchema } from './structural-schema.js';

export class CrdConventionError extends Error {
  constructor(
    readonly kind: string,
    readonly problems: readonly string[],
  ) {
    super(`${kind}: the schema breaks CRD conventions:\n  ${problems.join('\n  ')}`);
    this.name = 'CrdConventionError';
  }
}

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, {
    target: 'openapi-3.0',
    io: 'input',
    unrepresentable: 'throw',
  });
}

export function crdDocument(definition: CrdDefinition): Record<string, unknown> {
  const problems: string[] = [];
  const root: JsonSchema = {
    type: 'object',
    description: definition.description,
    properties: {
      apiVersion: { type: 'string', maxLength: 64, description: 'agentgateway.dev/v1alpha1' },
      kind: { type: 'string', maxLength: 64, description: definition.kind },
      // The apiserver forbids anything but type (and name/generateName) on metadata.
      metadata: { type: 'object' },
      spec: jsonSchemaOf(definition.spec),
      status: jsonSchemaOf(definition.status),
    },
    required: ['spec'],
  };
  const openAPIV3Schema = structural(
    root,
    '',
    { rules: definition.rules, listMaps: ['status.conditions'] },
    problems,
  );
  if (problems.length > 0) throw new CrdConventionError(definition.kind, problems);
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${definition.plural}.${GROUP}`,
      labels: { 'app.kubernetes.io/part-of': 'agent-gateway' },
    },
    spec: {
      group: GROUP,
      scope: 'Namespaced',
      names: {
        kind: definition.kind,
        listKind: `${definition.kind}List`,
        plural: definition.plural,
        singular: definition.singular,
        shortNames: [...definition.shortNames],
        categories: [CATEGORY],
      },
      versions: [
        {
          name: VERSION,
          served: true,
          storage: true,
          subresources: { status: {} },
          additionalPrinterColumns: definition.printerColumns.map((column) => ({ ...column })),
          ...(definition.selectableFields.length === 0
            ? {}
            : { selectableFields: definition.selectableFields.map((jsonPath) => ({ jsonPath })) }),
          schema: { openAPIV3Schema },
        },
      ],
    },
  };
}
