// Workspace spec.governance (issue 41): the config contract's `governance`, except that a guardrail
// hook's HMAC secret is a secretKeyRef into the Workspace's namespace (the operator copies the value
// into the workspace's rendered credentials Secret), never an env or file reference, which would
// name the gateway's own environment or files.
import { z } from 'zod';
import { GovernanceSchema, GuardrailHookSchema, GuardrailsSchema } from '../../../gateway/config/index.js';
import { SecretKeyRefSchema } from './common.js';
import type { CelRule } from './crd-definition.js';

const HookSpecSchema = GuardrailHookSchema.extend({
  secret: z
    .strictObject({ secretKeyRef: SecretKeyRefSchema })
    .describe('The HMAC-SHA256 key the gateways sign each hook request with.'),
});

export const WorkspaceGuardrailsSpecSchema = z
  .strictObject({
    maskSecrets: GuardrailsSchema.shape.maskSecrets,
    hooks: z
      .array(HookSpecSchema)
      .max(16)
      .default([])
      .describe('HTTP hooks asked before a call is relayed and/or before its result reaches the caller.'),
  })
  .describe('Secret masking and HTTP guardrail hooks (docs/security.md "Guardrails").');

export const WorkspaceGovernanceSpecSchema = GovernanceSchema.extend({
  guardrails: WorkspaceGuardrailsSpecSchema.optional(),
}).describe('Policy over tool calls, limits per tool and identity, and guardrails (docs/security.md).');

export const WORKSPACE_GOVERNANCE_RULES: Readonly<Record<string, readonly CelRule[]>> = {
  'spec.governance.guardrails': [
    {
      rule: '!has(self.hooks) || self.hooks.all(h, self.hooks.exists_one(k, k.name == h.name))',
      message: 'governance.guardrails.hooks: each hook name may be used once',
    },
  ],
};
