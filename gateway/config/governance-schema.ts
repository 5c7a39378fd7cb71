// What a workspace decides about its tools beyond "which key sees which tool" (issue 41, DESIGN
// D26): policy over calls, limits per tool and identity, and guardrails. Each part is its own schema
// file; this object only gathers them under `workspaces[].governance` (and a Workspace's
// `spec.governance`). Pinned definitions and overrides belong to a source (mcp-source-schema.ts).
import { z } from 'zod';
import { GuardrailsSchema } from './guardrails-schema.js';
import { PoliciesSchema } from './policy-schema.js';
import { ToolLimitsSchema } from './tool-limits-schema.js';

export const GovernanceSchema = z
  .strictObject({
    /** Rules in CEL that allow or deny a tools/call (policy-schema.ts). */
    policies: PoliciesSchema.optional(),
    toolLimits: ToolLimitsSchema.optional(),
    guardrails: GuardrailsSchema.default({ maskSecrets: true, hooks: [] }),
  })
  .describe('Policy over tool calls, limits per tool and identity, and guardrails (docs/security.md).');
export type GovernanceConfig = z.infer<typeof GovernanceSchema>;
