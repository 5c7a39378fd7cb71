// Guardrails of a workspace (issue 41 part 5, DESIGN D26, docs/security.md "Guardrails"): the
// built-in masking of credentials in what tools, resources, prompts and knowledge return, and
// admin-declared HTTP hooks that see a tools/call, resources/read or prompts/get before it is relayed
// and/or its result before the caller does, and allow, deny or rewrite it. A hook's URL is tenant-declared in the cluster, so it is reached through the tenant
// reach policy like an upstream; its HMAC secret is a reference, never an inline value.
import { z } from 'zod';
import { nameSchema, patternSchema, reportDuplicates } from './name-schema.js';
import { SecretRefSchema } from './secret-ref.js';

/** The MCP methods the wire format describes. */
export const GUARDED_METHODS = ['tools/call', 'resources/read', 'prompts/get'] as const;
export type GuardedMethod = (typeof GUARDED_METHODS)[number];
/** The methods a hook may be declared for: all the wire format describes. */
export const HOOKED_METHODS = GUARDED_METHODS;

/** Which side of the relay a hook sees: the request before it, the result after it. */
export const HOOK_PHASES = ['request', 'response'] as const;
export type HookPhase = (typeof HOOK_PHASES)[number];

/** What a hook that fails (times out, answers 5xx or malformed) means: the call goes on (`open`) or
 * is refused (`closed`, the default: deny by default). */
export const HOOK_FAILURE_MODES = ['open', 'closed'] as const;
export type HookFailureMode = (typeof HOOK_FAILURE_MODES)[number];

export const HOOK_TIMEOUT_MIN_MS = 50;
export const HOOK_TIMEOUT_MAX_MS = 30_000;
export const MAX_HOOKS = 16;

export const GuardrailHookSchema = z
  .strictObject({
    name: nameSchema.describe('Names the hook in errors, metrics and the wire body.'),
    url: z
      .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
      .max(2048)
      .describe('Where the gateway POSTs each guarded message; reached through the tenant reach policy.'),
    methods: z
      .array(z.enum(HOOKED_METHODS, { error: 'must be tools/call, resources/read or prompts/get' }))
      .min(1)
      .max(HOOKED_METHODS.length)
      .default(['tools/call'])
      .describe(
        'The MCP methods this hook guards; on resources/read and prompts/get it sees every read and prompt of the sources the caller may see.',
      ),
    phases: z
      .array(z.enum(HOOK_PHASES))
      .min(1)
      .max(HOOK_PHASES.length)
      .default(['request'])
      .describe(
        "request: before the relay (may rewrite tool or prompt arguments, or a read's URI within its source); response: before the caller sees the result (may rewrite it).",
      ),
    tools: z
      .array(patternSchema)
      .max(100)
      .optional()
      .describe(
        'Glob patterns over exposed tool names (`github__create_*`); absent: every tool. Narrows tools/call only, never resources/read or prompts/get.',
      ),
    secret: SecretRefSchema.describe(
      'The HMAC-SHA256 key the gateway signs each request with (X-Agw-Signature).',
    ),
    timeoutMs: z
      .number()
      .int()
      .min(HOOK_TIMEOUT_MIN_MS)
      .max(HOOK_TIMEOUT_MAX_MS)
      .default(2000)
      .describe('How long the gateway waits for the whole answer.'),
    failure: z
      .enum(HOOK_FAILURE_MODES)
      .default('closed')
      .describe(
        'A hook that fails (time-out, non-2xx, malformed answer): closed refuses the call, open lets it through.',
      ),
  })
  .describe('An HTTP guardrail hook (docs/security.md "Guardrail hooks").');
export type GuardrailHookConfig = z.infer<typeof GuardrailHookSchema>;

export const GuardrailsSchema = z
  .strictObject({
    maskSecrets: z
      .boolean()
      .default(true)
      .describe(
        'Mask credentials (cloud keys, private keys, tokens, API keys) in tool results, resource contents, prompt messages and knowledge answers.',
      ),
    hooks: z
      .array(GuardrailHookSchema)
      .max(MAX_HOOKS)
      .default([])
      .describe('HTTP hooks asked before a call is relayed and/or before its result reaches the caller.'),
  })
  .superRefine((guardrails, ctx) =>
    reportDuplicates(
      guardrails.hooks.map((hook) => hook.name),
      ['hooks'],
      'name',
      'hook name',
      ctx,
    ),
  )
  .describe('Secret masking and HTTP guardrail hooks (docs/security.md "Guardrails").');
export type GuardrailsConfig = z.infer<typeof GuardrailsSchema>;
