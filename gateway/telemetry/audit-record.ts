// The audit record (issue 29, DESIGN D22, docs/audit.md): one JSON line per authenticated action and
// per refusal, with who asked, what they asked for by name, what the gateway decided and how it
// ended. Never content: no arguments, results, queries, resource URIs or contents, tokens or keys.
// Every field is bounded (D23): enums are closed, names the caller sent are escaped and clipped, so
// a record cannot be forged or grown by a caller. The zod schema is the contract the tests hold
// records to; `buildAuditRecord` is the one place a record is made.
import { z } from 'zod';

export const AUDIT_SCHEMA = 'agw.audit.v5';

export const DECISIONS = ['allowed', 'denied'] as const;

/** Why a request was refused. `credential_*` come from the auth gate (a reason the gate knows but
 * this list does not becomes `credential_invalid`); `not_visible` is a name the key cannot see,
 * answered to the caller exactly like an unknown one. */
/** Credential failures the auth gate reports (API keys, then OAuth access tokens), by name. */
const CREDENTIAL_FAILURES = [
  'missing',
  'not_bearer',
  'malformed',
  'unknown',
  'revoked',
  'expired',
  'too_large',
  'untrusted_issuer',
  'bad_type',
  'bad_algorithm',
  'no_key',
  'keys_unavailable',
  'bad_signature',
  'wrong_audience',
  'not_yet_valid',
  'missing_claims',
  'inactive',
  'introspection_failed',
  'introspection_busy',
  'ambiguous_opaque',
  'bad_time_claim',
  'issued_in_future',
  'invalid',
] as const;
type CredentialDenial = `credential_${(typeof CREDENTIAL_FAILURES)[number]}`;

export const DENIAL_REASONS = [
  ...CREDENTIAL_FAILURES.map((failure): CredentialDenial => `credential_${failure}`),
  'identity_not_admitted',
  'host_not_allowed',
  'origin_not_allowed',
  'write_required',
  'policy',
  'not_visible',
  'tool_not_approved',
  'forbidden',
  'rate_limited',
  'quota_exceeded',
] as const;
export type DenialReason = (typeof DENIAL_REASONS)[number];

const CREDENTIAL_SET = new Set<string>(CREDENTIAL_FAILURES);

/** The denial for a failure reason of the auth gate (`not-bearer`, `wrong-audience`, …): a reason
 * this list does not know is `credential_invalid`; an identity no workspace admits (or several do)
 * is `identity_not_admitted`. */
export function credentialDenial(reason: string): DenialReason {
  if (reason === 'no-workspace' || reason === 'ambiguous') return 'identity_not_admitted';
  const name = reason.replaceAll('-', '_');
  return CREDENTIAL_SET.has(name) ? (`credential_${name}` as DenialReason) : 'credential_invalid';
}

export const OUTCOMES = [
  'ok',
  'proxy_authorization',
  'upstream_reachability',
  'upstream_authorization',
  'tool_execution',
  'request',
  'internal',
] as const;
export type Outcome = (typeof OUTCOMES)[number];

export const TARGET_KINDS = ['tool', 'prompt', 'resource', 'resource_template', 'source'] as const;
export type TargetKind = (typeof TARGET_KINDS)[number];

/** MCP methods recorded by name; any other method a client sends is recorded as `other`. */
export const MCP_METHODS = [
  'initialize',
  'ping',
  'logging/setLevel',
  'server/discover',
  'tools/list',
  'tools/call',
  'prompts/list',
  'prompts/get',
  'resources/list',
  'resources/read',
  'resources/templates/list',
  'resources/subscribe',
  'resources/unsubscribe',
  'subscriptions/listen',
  'completion/complete',
  'tasks/get',
  'tasks/update',
  'tasks/cancel',
  'tasks/result',
] as const;
/** What else a request to /mcp can be: a notification, a client's JSON-RPC response (the answer to
 * a question asked mid-call), the legacy GET stream, a DELETE, a method outside the list (`other`),
 * or `unknown`: the body was never parsed (a refusal before it, such as a 401) and neither a peek at
 * it nor `Mcp-Method` named a method of the list. */
export const MCP_OTHER = [
  'mcp.notification',
  'mcp.response',
  'mcp.stream',
  'mcp.delete',
  'other',
  'unknown',
] as const;

const KNOWN_MCP_METHODS: ReadonlySet<string> = new Set(MCP_METHODS);

/** The method of a request refused before its body was parsed (a 401, a refused Host): what the
 * body's `method` or else the `Mcp-Method` header says, when it is a name of the list; otherwise
 * undefined (the record says `unknown`). Recorded only: an unauthenticated caller's claim decides
 * nothing else. */
export function refusedMcpMethod(
  bodyMethod: string | undefined,
  headerMethod: string | string[] | undefined,
): string | undefined {
  if (bodyMethod !== undefined && KNOWN_MCP_METHODS.has(bodyMethod)) return bodyMethod;
  return typeof headerMethod === 'string' && KNOWN_MCP_METHODS.has(headerMethod) ? headerMethod : undefined;
}

/** Lengths: names the caller sends are clipped to these, after escaping. */
export const LIMITS = { id: 128, name: 200, workspace: 128, issuer: 512, subject: 256, method: 80 } as const;

const bounded = (max: number) => z.string().min(1).max(max);

/** What a caller's request id may be to be recorded (the same rule as edge/request-id.ts). */
const CLIENT_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

const ApiKeyPrincipalSchema = z.strictObject({
  kind: z.literal('api_key'),
  key_id: bounded(LIMITS.id),
  key_fingerprint: z.string().regex(/^[0-9a-f]{1,64}$/),
});
const OidcPrincipalSchema = z.strictObject({
  kind: z.literal('oidc'),
  issuer: bounded(LIMITS.issuer),
  subject: bounded(LIMITS.subject),
});

export const AuditRecordSchema = z.strictObject({
  schema: z.literal(AUDIT_SCHEMA),
  time: z.iso.datetime(),
  request_id: bounded(LIMITS.id),
  /** The caller's own X-Request-Id (v3), only when it was a short token (edge/request-id.ts). */
  client_request_id: z.string().regex(CLIENT_REQUEST_ID).optional(),
  trace_id: z
    .string()
    .regex(/^[0-9a-f]{32}$/)
    .optional(),
  face: z.enum(['mcp', 'rest']),
  method: bounded(LIMITS.method),
  era: z.enum(['modern', 'legacy']).optional(),
  workspace: bounded(LIMITS.workspace).optional(),
  principal: z.discriminatedUnion('kind', [ApiKeyPrincipalSchema, OidcPrincipalSchema]).optional(),
  source: bounded(LIMITS.name).optional(),
  target: z
    .strictObject({
      kind: z.enum(TARGET_KINDS),
      name: bounded(LIMITS.name).optional(),
      requested: bounded(LIMITS.name).optional(),
    })
    .optional(),
  relayed_by: z.literal('call_tool').optional(),
  decision: z.enum(DECISIONS),
  reason: z.enum(DENIAL_REASONS).optional(),
  /** The CEL policy that refused the call (v4): a rule name of the config. */
  policy: bounded(LIMITS.name).optional(),
  outcome: z.enum(OUTCOMES),
  error_code: z
    .string()
    .regex(/^(?:[a-z_]{1,40}|-?\d{1,6})$/)
    .optional(),
  status: z.number().int().min(0).max(999),
  streamed: z.literal(true).optional(),
  client_gone: z.literal(true).optional(),
  duration_ms: z.number().min(0),
});
export type AuditRecord = z.infer<typeof AuditRecordSchema>;
export type AuditPrincipal = NonNullable<AuditRecord['principal']>;

// C0 and C1 controls, DEL, line and paragraph separators, bidirectional overrides and the BOM: what
// could break a line-oriented reader or make a name display as something else.
const UNSAFE = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ufeff]/g;
const UNSAFE_CHAR = new RegExp(UNSAFE.source);

/** A caller-supplied name made safe for a record: unsafe characters written as `\uXXXX` text,
 * lone surrogates replaced, at most `max` characters (a clipped value ends with `…`). */
export function safeText(value: string, max: number): string {
  // Most names need nothing: returned as they are, without a copy.
  if (value.length <= max && !UNSAFE_CHAR.test(value) && value.isWellFormed()) return value;
  const escaped = value
    .slice(0, max * 6)
    .toWellFormed()
    .replace(UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  if (escaped.length <= max) return escaped;
  let cut = max - 1;
  // Never split a surrogate pair.
  const code = escaped.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return `${escaped.slice(0, cut)}…`;
}

/** The principal as the gateway resolved it, read structurally: an OAuth caller carries `oidc`
 * (issuer and subject; auth/principal.ts), an API key does not. A `kind` field, when a principal
 * has one, decides instead. EXTENSION POINT: a new kind of credential adds its branch here and its
 * variant to `AuditRecordSchema.principal`; an unknown kind is recorded without a principal. */
export interface PrincipalLike {
  readonly kind?: string;
  readonly keyId?: string;
  readonly keyFingerprint?: string;
  readonly oidc?: { readonly issuer?: string; readonly subject?: string } | undefined;
}

export function auditPrincipal(principal: PrincipalLike | undefined): AuditPrincipal | undefined {
  if (principal === undefined) return undefined;
  const kind = principal.kind ?? (principal.oidc === undefined ? 'api_key' : 'oidc');
  if (kind === 'api_key' && principal.keyId !== undefined && principal.keyFingerprint !== undefined) {
    const fingerprint = principal.keyFingerprint.toLowerCase();
    return {
      kind: 'api_key',
      key_id: safeText(principal.keyId, LIMITS.id),
      key_fingerprint: /^[0-9a-f]{1,64}$/.test(fingerprint) ? fingerprint : '0',
    };
  }
  const oidc = principal.oidc;
  if (kind === 'oidc' && oidc?.issuer && oidc.subject)
    return {
      kind: 'oidc',
      issuer: safeText(oidc.issuer, LIMITS.issuer),
      subject: safeText(oidc.subject, LIMITS.subject),
    };
  return undefined;
}

const ERROR_CODE = /^(?:[a-z_]{1,40}|-?\d{1,6})$/;
const TRACE_ID = /^[0-9a-f]{32}$/;
const MCP_METHOD_SET = new Set<string>([...MCP_METHODS, ...MCP_OTHER]);
const OUTCOME_SET = new Set<string>(OUTCOMES);

/** What the request told the audit context, plus what the HTTP layer knows at the end. */
export interface AuditInput {
  readonly startedAt: number;
  readonly requestId: string;
  /** The caller's X-Request-Id; recorded only when it matches the token rule, else left out. */
  readonly clientRequestId?: string | undefined;
  readonly traceId?: string | undefined;
  readonly face: 'mcp' | 'rest';
  /** The MCP method (any string: unknown ones become `other`), or for REST `<METHOD> <route>`. */
  readonly method: string;
  readonly era?: 'modern' | 'legacy' | undefined;
  readonly workspace?: string | undefined;
  readonly principal?: PrincipalLike | undefined;
  readonly source?: string | undefined;
  readonly target?:
    | {
        readonly kind: TargetKind;
        readonly name?: string | undefined;
        readonly requested?: string | undefined;
      }
    | undefined;
  readonly relayedBy?: 'call_tool' | undefined;
  readonly denial?: DenialReason | undefined;
  readonly policy?: string | undefined;
  readonly errorClass?: string | undefined;
  readonly errorCode?: string | undefined;
  readonly status: number;
  readonly streamed?: boolean | undefined;
  readonly clientGone?: boolean | undefined;
  readonly durationMs: number;
}

function decisionOf(input: AuditInput): { decision: 'allowed' | 'denied'; reason?: DenialReason } {
  if (input.denial !== undefined) return { decision: 'denied', reason: input.denial };
  if (input.errorCode === 'unauthenticated') return { decision: 'denied', reason: 'credential_invalid' };
  if (input.errorCode === 'forbidden') return { decision: 'denied', reason: 'forbidden' };
  if (input.errorCode === 'rate_limited') return { decision: 'denied', reason: 'rate_limited' };
  return { decision: 'allowed' };
}

function methodOf(input: AuditInput): string {
  if (input.face === 'mcp') return MCP_METHOD_SET.has(input.method) ? input.method : 'other';
  return safeText(input.method, LIMITS.method);
}

/** The record for one request. Optional fields are left out, never written as null. */
export function buildAuditRecord(input: AuditInput): AuditRecord {
  const principal = auditPrincipal(input.principal);
  const { decision, reason } = decisionOf(input);
  const target = input.target;
  const outcome =
    input.errorClass === undefined ? 'ok' : OUTCOME_SET.has(input.errorClass) ? input.errorClass : 'internal';
  // Built field by field in the record's order (assignments, not spreads: this runs per request).
  const record: Partial<Record<keyof AuditRecord, unknown>> = {
    schema: AUDIT_SCHEMA,
    time: new Date(input.startedAt).toISOString(),
    request_id: safeText(input.requestId || '-', LIMITS.id),
  };
  if (input.clientRequestId !== undefined && CLIENT_REQUEST_ID.test(input.clientRequestId))
    record.client_request_id = input.clientRequestId;
  if (input.traceId !== undefined && TRACE_ID.test(input.traceId)) record.trace_id = input.traceId;
  record.face = input.face;
  record.method = methodOf(input);
  if (input.era !== undefined) record.era = input.era;
  if (input.workspace) record.workspace = safeText(input.workspace, LIMITS.workspace);
  if (principal !== undefined) record.principal = principal;
  if (input.source) record.source = safeText(input.source, LIMITS.name);
  if (target !== undefined) {
    const named: { kind: TargetKind; name?: string; requested?: string } = { kind: target.kind };
    if (target.name) named.name = safeText(target.name, LIMITS.name);
    if (target.requested) named.requested = safeText(target.requested, LIMITS.name);
    record.target = named;
  }
  if (input.relayedBy !== undefined) record.relayed_by = input.relayedBy;
  record.decision = decision;
  if (reason !== undefined) record.reason = reason;
  if (reason === 'policy' && input.policy) record.policy = safeText(input.policy, LIMITS.name);
  record.outcome = outcome;
  if (input.errorCode !== undefined && ERROR_CODE.test(input.errorCode)) record.error_code = input.errorCode;
  record.status =
    Number.isInteger(input.status) && input.status >= 0 && input.status <= 999 ? input.status : 0;
  if (input.streamed === true) record.streamed = true;
  if (input.clientGone === true) record.client_gone = true;
  record.duration_ms = Math.max(0, Math.round(input.durationMs * 10) / 10);
  return record as AuditRecord;
}
