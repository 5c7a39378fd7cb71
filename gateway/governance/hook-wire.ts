// The wire format of a guardrail hook (docs/security.md "Guardrail hooks"): the JSON body the
// gateway POSTs, its HMAC signature, and the checks on the hook's answer. An answer is bounded in
// bytes, and a rewrite is bounded in size and nesting and must have the shape of what it replaces:
// an answer that is none of allow, deny or a well-formed rewrite is a hook failure, never a pass.
import { createHmac } from 'node:crypto';
import type { Principal } from '../auth/index.js';
import type { GuardedMethod, HookPhase } from '../config/index.js';
import { nestsDeeperThan } from '../platform/nesting-depth.js';
import { isRecord } from '../platform/is-record.js';

export const WIRE_VERSION = 'agw.guardrail.v1';
export const SIGNATURE_HEADER = 'x-agw-signature';
export const TIMESTAMP_HEADER = 'x-agw-timestamp';
export const HOOK_HEADER = 'x-agw-hook';
/** The largest answer read; past it the hook has failed. */
export const MAX_ANSWER_BYTES = 1024 * 1024;
/** Nesting allowed in rewritten arguments or results (the inbound bound on params is 64). */
export const MAX_REWRITE_DEPTH = 64;
/** The longest reason shown to the caller; a longer one is clipped. */
export const MAX_REASON_CHARS = 300;

/** What a hook is asked about: the tool (tools/call), the resource (resources/read) or the prompt
 * (prompts/get), by the names the caller and the source use. */
export type HookTarget =
  | { readonly kind: 'tool'; readonly source: string; readonly name: string; readonly upstreamName: string }
  | { readonly kind: 'resource'; readonly source: string; readonly uri: string; readonly upstreamUri: string }
  | {
      readonly kind: 'prompt';
      readonly source: string;
      readonly name: string;
      readonly upstreamName: string;
    };

/** Who asked, without anything secret: no key, token or key hash. */
export function principalView(principal: Principal): Record<string, unknown> {
  const oidc = principal.oidc;
  return {
    subject: oidc?.subject ?? principal.keyId,
    credential: oidc === undefined ? 'api_key' : 'oauth',
    access: principal.access,
    ...(principal.keyName === undefined || oidc !== undefined ? {} : { keyName: principal.keyName }),
    ...(oidc === undefined ? {} : { issuer: oidc.issuer, scopes: oidc.scopes }),
  };
}

export interface HookMessage {
  readonly hook: string;
  readonly phase: HookPhase;
  readonly method: GuardedMethod;
  readonly principal: Principal;
  readonly target: HookTarget;
  /** The request phase's `arguments`: a tool's or a prompt's arguments, a read's params (`{uri}`);
   * the response phase's `result`. */
  readonly payload: Record<string, unknown>;
}

export function hookBody(message: HookMessage): string {
  const { target } = message;
  const { kind, ...named } = target;
  return JSON.stringify({
    version: WIRE_VERSION,
    hook: message.hook,
    phase: message.phase,
    method: message.method,
    workspace: message.principal.workspace.name,
    principal: principalView(message.principal),
    [kind]: named,
    [message.phase === 'request' ? 'arguments' : 'result']: message.payload,
  });
}

/** `sha256=<hex>` of HMAC-SHA256 over `<timestamp>.<body>`. */
export function signature(secret: string, timestamp: string, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

export type HookAnswer =
  | { readonly decision: 'allow' }
  | { readonly decision: 'deny'; readonly reason: string | undefined }
  | { readonly decision: 'rewrite'; readonly value: Record<string, unknown> };

/** The answer's decision, or why it is malformed. */
export function parseAnswer(
  text: string,
  phase: HookPhase,
  method: GuardedMethod,
): HookAnswer | { readonly malformed: string } {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return { malformed: 'not JSON' };
  }
  if (!isRecord(parsed)) return { malformed: 'not an object' };
  const decision = parsed['decision'];
  if (decision === 'allow') return { decision };
  if (decision === 'deny') return { decision, reason: reasonOf(parsed['reason']) };
  if (decision !== 'rewrite') return { malformed: 'no decision' };
  const field = phase === 'request' ? 'arguments' : 'result';
  const value = parsed[field];
  if (!isRecord(value)) return { malformed: `rewrite without an ${field} object` };
  if (nestsDeeperThan(value, MAX_REWRITE_DEPTH)) return { malformed: `${field} nested too deeply` };
  if (phase === 'request' && !REQUEST_SHAPES[method](value))
    return { malformed: `arguments are not ${method} arguments` };
  if (phase === 'response' && !RESULT_SHAPES[method](value))
    return { malformed: `result is not a ${method} result` };
  return { decision, value };
}

/** A reason safe to show: a string, control characters dropped, clipped. */
function reasonOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const clean = value.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ').trim();
  if (clean === '') return undefined;
  return clean.length > MAX_REASON_CHARS ? `${clean.slice(0, MAX_REASON_CHARS)}…` : clean;
}

/** What rewritten request arguments must look like, per method: a prompt's arguments are strings,
 * a read names one URI (where it may point is the caller's check, item-guardrails.ts). */
const REQUEST_SHAPES: Record<GuardedMethod, (value: Record<string, unknown>) => boolean> = {
  'tools/call': () => true,
  'resources/read': (value) =>
    typeof value['uri'] === 'string' && Object.keys(value).every((name) => name === 'uri'),
  'prompts/get': (value) => Object.values(value).every((item) => typeof item === 'string'),
};

/** What a rewritten result must look like, per method. */
const RESULT_SHAPES: Record<GuardedMethod, (value: Record<string, unknown>) => boolean> = {
  'tools/call': isToolResult,
  'resources/read': (value) => arrayOfRecords(value['contents'], (item) => typeof item['uri'] === 'string'),
  'prompts/get': (value) => arrayOfRecords(value['messages'], (item) => typeof item['role'] === 'string'),
};

function arrayOfRecords(value: unknown, each: (item: Record<string, unknown>) => boolean): boolean {
  return Array.isArray(value) && value.every((item) => isRecord(item) && each(item));
}

/** A tools/call result: a content array of typed items (structuredContent and isError optional). */
function isToolResult(value: Record<string, unknown>): boolean {
  if (!arrayOfRecords(value['content'], (item) => typeof item['type'] === 'string')) return false;
  const isError = value['isError'];
  if (isError !== undefined && typeof isError !== 'boolean') return false;
  const structured = value['structuredContent'];
  return structured === undefined || isRecord(structured);
}
