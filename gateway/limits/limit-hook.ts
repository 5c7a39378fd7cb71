// Enforces rates and quotas on every authenticated request, after the body is parsed (so a /mcp
// tools/call is known as one) and before anything runs. A refusal is 429 `rate_limited` with
// `Retry-After` and the IETF RateLimit/RateLimit-Policy fields (on /mcp the error handler renders
// it as a JSON-RPC error with the request's id); an admitted request carries the fields too. The
// audit record tells a rate (`rate_limited`) from a daily quota (`quota_exceeded`).
import { idEchoesExactly } from '../platform/exact-rpc-id.js';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../auth/index.js';
import { GatewayError } from '../errors/index.js';
import { strictUtf8 } from '../platform/strict-utf8.js';
import { noteDenial } from '../telemetry/audit-context.js';
import type { LimitRule, LimitVerdict } from './limit-rules.js';
import type { RateLimiter } from './rate-limiter.js';
import { requestRules, type RequestKind } from './request-rules.js';
import { routeOf } from '../platform/matched-route.js';

const SEARCH_ROUTES = new Set(['/agent/search', '/agent/query']);

interface RpcShape {
  readonly id?: unknown;
  readonly method?: unknown;
  readonly params?: { readonly name?: unknown; readonly arguments?: unknown };
}

/** The /mcp body is still raw bytes here (the inbound ladder validates it later); decoded exactly as
 * the ladder decodes it, to tell tool calls and searches apart and to answer a refusal with its id. */
function rpcOf(request: FastifyRequest): RpcShape | undefined {
  // An MCP endpoint: /mcp or a workspace's own /w/<workspace>/mcp.
  if (routeOf(request).config.face !== 'mcp') return undefined;
  const body = request.body;
  if (!Buffer.isBuffer(body)) return undefined;
  const text = strictUtf8(body);
  if (text === undefined) return undefined;
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return undefined;
    // A refusal answers with the id only when it echoes exactly (issue 28.3).
    return idEchoesExactly(text, parsed) === true ? parsed : { ...(parsed as RpcShape), id: undefined };
  } catch {
    return undefined;
  }
}

function kindOf(request: FastifyRequest, rpc: RpcShape | undefined): RequestKind {
  if (SEARCH_ROUTES.has(routeOf(request).url ?? '')) return 'search';
  if (rpc?.method === 'tools/call') return toolCallKind(rpc.params);
  return 'request';
}

/** A knowledge search or a tool search (find_tools) counts as a search; a call_tool as what it calls
 * (issue 23); every other call as a tool call. */
function toolCallKind(params: RpcShape['params']): RequestKind {
  const name = params?.name;
  if (name === 'search' || name === 'find_tools') return 'search';
  if (name === 'call_tool') {
    const args = params?.arguments;
    const inner = typeof args === 'object' && args !== null ? (args as { name?: unknown }).name : undefined;
    if (inner === 'search') return 'search';
  }
  return 'tool-call';
}

function fields(rule: LimitRule, verdict: LimitVerdict): Record<string, string> {
  const windowS = Math.ceil(rule.periodMs / 1000);
  return {
    'ratelimit-policy': `"${rule.policy}";q=${rule.limit};w=${windowS}`,
    ratelimit: `"${rule.policy}";r=${verdict.remaining};t=${Math.ceil(verdict.resetMs / 1000)}`,
  };
}

export function limitHook(limiter: RateLimiter, prefix: () => string) {
  const admit = async (request: FastifyRequest, reply: FastifyReply, principal: Principal): Promise<void> => {
    const rpc = rpcOf(request);
    const rules = requestRules(
      prefix(),
      principal.workspace,
      { id: principal.keyId, limits: principal.limits },
      kindOf(request, rpc),
    );
    if (rules.length === 0) return;
    const verdict = await limiter.admit(rules);
    const rule = verdict.rule;
    if (verdict.allowed) {
      if (rule !== undefined)
        for (const [name, value] of Object.entries(fields(rule, verdict))) void reply.header(name, value);
      return;
    }
    // The caller hears one code for both; the auditor is told which kind of limit refused.
    noteDenial(rule?.kind === 'quota' ? 'quota_exceeded' : 'rate_limited');
    const retryAfterS = Math.max(1, Math.ceil(verdict.retryAfterMs / 1000));
    // On /mcp the JSON-RPC error answers the request by its id.
    const id = rpc?.id;
    if (typeof id === 'string' || typeof id === 'number') request.rpcId = id;
    throw new GatewayError(
      'rate_limited',
      `The ${rule?.policy ?? 'rate'} limit (${rule?.limit ?? '?'} per ${rule === undefined ? '?' : Math.ceil(rule.periodMs / 1000)} s) is reached; retry after ${retryAfterS} s.`,
      {
        headers: { 'retry-after': String(retryAfterS), ...(rule === undefined ? {} : fields(rule, verdict)) },
      },
    );
  };
  // `done` style: a caller without limits (the common case) passes without a promise (issue 45).
  return (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void): void => {
    const principal = request.principal;
    if (
      principal === undefined ||
      (principal.limits === undefined && principal.workspace.limits === undefined)
    ) {
      done();
      return;
    }
    admit(request, reply, principal).then(() => done(), done);
  };
}
