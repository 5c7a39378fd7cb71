// Limits per tool and per identity (issue 41 part 4, DESIGN D26): `governance.toolLimits` of a
// workspace. Each limit names the tools it counts (glob patterns over exposed tool names, as a key's
// `tools`), whom it counts per (the caller's identity, its key or identity rule, or the whole
// workspace) and at least one rate. Enforced in gateway/limits/tool-limits.ts.
import { z } from 'zod';
import { nameSchema, patternSchema, reportDuplicates } from './name-schema.js';

export const TOOL_LIMIT_SCOPES = ['subject', 'key', 'workspace'] as const;
export type ToolLimitScope = (typeof TOOL_LIMIT_SCOPES)[number];

export const ToolLimitSchema = z
  .strictObject({
    name: nameSchema.describe(
      'Names the limit in refusals (RateLimit-Policy "tool-<name>-<window>") and in the audit; unique in the workspace.',
    ),
    tools: z
      .array(patternSchema)
      .min(1)
      .max(100)
      .describe(
        "Glob patterns over exposed tool names (github__*), as an API key's tools; a call to any matching tool counts.",
      ),
    per: z
      .enum(TOOL_LIMIT_SCOPES)
      .default('subject')
      .describe(
        'Whom the limit counts per: subject (each caller: the OAuth subject, or the API key), key (each API key, or each identity rule for OAuth callers), workspace (all callers together).',
      ),
    callsPerMinute: z
      .number()
      .int()
      .min(1)
      .max(1_000_000)
      .optional()
      .describe('Calls per minute (a rate: a burst of this many, then one every minute / this many).'),
    callsPerHour: z
      .number()
      .int()
      .min(1)
      .max(60_000_000)
      .optional()
      .describe('Calls per hour (a rate: a burst of this many, then one every hour / this many).'),
    callsPerDay: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .optional()
      .describe('Calls per UTC day (a quota, reset at midnight UTC).'),
  })
  .superRefine((limit, ctx) => {
    if (
      limit.callsPerMinute === undefined &&
      limit.callsPerHour === undefined &&
      limit.callsPerDay === undefined
    )
      ctx.addIssue({ code: 'custom', path: [], message: 'set callsPerMinute, callsPerHour or callsPerDay' });
  })
  .describe('One limit on calls to some tools, per caller, key or workspace.');
export type ToolLimitConfig = z.infer<typeof ToolLimitSchema>;

export const ToolLimitsSchema = z
  .array(ToolLimitSchema)
  .max(50)
  .superRefine((limits, ctx) =>
    reportDuplicates(
      limits.map((limit) => limit.name),
      [],
      'name',
      'tool limit',
      ctx,
    ),
  )
  .describe(
    'Limits on calls per tool and per identity (docs/limits.md); a call must pass every limit whose tools match it.',
  );
