// What the CRD generator needs to know about one kind besides its zod schemas: names, columns,
// selectable fields and the hand-written CEL rules, keyed by the JSON path they attach to.
import type { z } from 'zod';

export interface CelRule {
  readonly rule: string;
  readonly message: string;
  /** Set for transition rules (they compare with oldSelf). */
  readonly reason?:
    'FieldValueInvalid' | 'FieldValueForbidden' | 'FieldValueRequired' | 'FieldValueDuplicate';
}

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'date' | 'boolean';
  readonly jsonPath: string;
  readonly description: string;
  readonly priority?: number;
}

export interface CrdDefinition {
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly description: string;
  readonly spec: z.ZodType;
  readonly status: z.ZodType;
  /** CEL rules by dotted path under the root ('spec', 'spec.workspaceRef', …). */
  readonly rules: Readonly<Record<string, readonly CelRule[]>>;
  readonly printerColumns: readonly PrinterColumn[];
  readonly selectableFields: readonly string[];
}

export const READY_COLUMN: PrinterColumn = {
  name: 'Ready',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].status',
  description: 'Whether the gateways serve this resource',
};

export const REASON_COLUMN: PrinterColumn = {
  name: 'Reason',
  type: 'string',
  jsonPath: '.status.conditions[?(@.type=="Ready")].reason',
  description: 'Why it is (not) ready',
};

export const AGE_COLUMN: PrinterColumn = {
  name: 'Age',
  type: 'date',
  jsonPath: '.metadata.creationTimestamp',
  description: 'Time since creation',
};

export const WORKSPACE_COLUMN: PrinterColumn = {
  name: 'Workspace',
  type: 'string',
  jsonPath: '.spec.workspaceRef.name',
  description: 'The Workspace it belongs to',
};

export const IMMUTABLE_WORKSPACE_REF: readonly CelRule[] = [
  {
    rule: 'self == oldSelf',
    message: 'workspaceRef is immutable; delete and re-create the resource to move it',
  },
];

/** Workspace and source names become names inside the gateway (tool prefixes, labels): ≤ 40. */
export const SHORT_NAME_RULE: CelRule = {
  rule: "self.metadata.name.matches('^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$')",
  message:
    'the name must be 1-40 lower-case letters, digits or hyphens (it becomes a name inside the gateway)',
};
