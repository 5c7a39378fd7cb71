// ApiKey: one credential of one workspace. The operator issues the key (same format and CSPRNG as
// `agent-gateway key create`), writes the plaintext once into a Secret next to the ApiKey and gives
// the gateways only its hash. `rotation` issues a new key; `keyId` + `keyHash` (from
// `agent-gateway key hash`) bring your own key, so the plaintext never enters the cluster.
import { z } from 'zod';
import {
  AccessSchema,
  LimitsSchema,
  PoliciesSchema,
  ToolDisclosureSchema,
} from '../../../gateway/config/index.js';
import { ConditionsSchema, ObservedGenerationSchema, WorkspaceRefSchema } from './common.js';
import {
  AGE_COLUMN,
  IMMUTABLE_WORKSPACE_REF,
  READY_COLUMN,
  WORKSPACE_COLUMN,
  type CrdDefinition,
} from './crd-definition.js';

const pattern = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.*/-]+$/);

export const ApiKeySpecSchema = z
  .strictObject({
    workspaceRef: WorkspaceRefSchema,
    displayName: z.string().min(1).max(100).optional().describe('A label shown by key listings and logs.'),
    access: AccessSchema.default('read'),
    sources: z
      .array(pattern.describe('A glob pattern over source names.'))
      .max(100)
      .default(['*'])
      .describe('Which sources of the workspace the key may see (glob patterns).'),
    tools: z
      .array(pattern.describe('A glob pattern over namespaced tool names (<source>__<tool>).'))
      .max(100)
      .default(['*'])
      .describe('Which tools the key may see (glob patterns over namespaced names).'),
    expiresAt: z
      .string()
      .max(64)
      .regex(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/)
      .optional()
      .describe('When the key stops working (RFC 3339, e.g. 2027-01-31T00:00:00Z).'),
    revoked: z.boolean().default(false).describe('true refuses the key on every gateway within seconds.'),
    limits: LimitsSchema.optional(),
    toolDisclosure: ToolDisclosureSchema.optional().describe(
      "What /mcp tools/list offers this key: all or search (find_tools and call_tool); unset: the workspace's setting.",
    ),
    policies: PoliciesSchema.optional().describe(
      "Rules in CEL over this key's tool calls, decided after its workspace's (docs/security.md). A rule that does not compile: the key is not served (Ready=False, InvalidSpec).",
    ),
    rotation: z
      .number()
      .int()
      .min(0)
      .max(1_000_000)
      .default(0)
      .describe('Raise to issue a new key; the old one stops working when the new one is served.'),
    keyId: z
      .string()
      .regex(/^[A-Za-z0-9]{10}$/)
      .max(10)
      .optional()
      .describe('Bring your own key: the id printed by `agent-gateway key hash` (with keyHash).'),
    keyHash: z
      .string()
      .regex(/^sha256:[0-9a-f]{64}$/)
      .max(71)
      .optional()
      .describe('Bring your own key: sha256:<hex> printed by `agent-gateway key hash` (with keyId).'),
  })
  .describe('An API key of one workspace.');

export const ApiKeyStatusSchema = z
  .strictObject({
    observedGeneration: ObservedGenerationSchema.optional(),
    conditions: ConditionsSchema.optional(),
    secretName: z
      .string()
      .max(253)
      .optional()
      .describe('The Secret (data key "key") holding the issued key; absent for bring-your-own keys.'),
    keyId: z.string().max(10).optional().describe('The public id of the key currently served.'),
    issuedRotation: z
      .number()
      .int()
      .min(0)
      .optional()
      .describe('The spec.rotation the current key was issued for.'),
  })
  .describe('The key the gateways currently serve.');

export const API_KEY: CrdDefinition = {
  kind: 'ApiKey',
  plural: 'apikeys',
  singular: 'apikey',
  shortNames: ['agwkey'],
  description:
    'An API key of an Agent Gateway workspace. The issued key is in the Secret named by status.secretName (data key "key").',
  spec: ApiKeySpecSchema,
  status: ApiKeyStatusSchema,
  rules: {
    spec: [
      {
        rule: 'has(self.keyId) == has(self.keyHash)',
        message: 'keyId and keyHash go together (both from `agent-gateway key hash`), or neither',
      },
    ],
    'spec.workspaceRef': IMMUTABLE_WORKSPACE_REF,
  },
  printerColumns: [
    WORKSPACE_COLUMN,
    { name: 'Access', type: 'string', jsonPath: '.spec.access', description: 'read or write' },
    READY_COLUMN,
    { name: 'Secret', type: 'string', jsonPath: '.status.secretName', description: 'Secret holding the key' },
    { name: 'Expires', type: 'string', jsonPath: '.spec.expiresAt', description: 'When the key expires' },
    AGE_COLUMN,
  ],
  selectableFields: ['.spec.workspaceRef.name'],
};
