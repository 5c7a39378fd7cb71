// GET /agent/usage (issue 25): the caller's own key (or OAuth identity) and every rate and quota
// that applies to it, with the counters as the limiter holds them — read, never counted. This
// request itself passed the limits first like any other, so the request rates include it. The
// workspace is the key's; no parameter can name another key or workspace.
import type { FastifyInstance } from 'fastify';
import type { Principal } from '../auth/index.js';
import type { RuleUsage } from '../limits/limit-rules.js';
import type { RateLimiter } from '../limits/rate-limiter.js';
import { requestRules } from '../limits/request-rules.js';
import { requirePrincipal } from '../edge/request-context.js';
import { sendAgentBody } from './agent-reply.js';

/** Patterns that admit everything read as null (no restriction). */
function restriction(patterns: readonly string[]): readonly string[] | null {
  return patterns.length === 1 && patterns[0] === '*' ? null : patterns;
}

function expiresAt(principal: Principal): string | null {
  if (principal.oidc !== undefined)
    return principal.oidc.expiresAtMs === undefined
      ? null
      : new Date(principal.oidc.expiresAtMs).toISOString();
  return principal.workspace.keys.find((key) => key.id === principal.keyId)?.expiresAt ?? null;
}

function keyRecord(principal: Principal) {
  return {
    fingerprint: principal.keyFingerprint,
    ...(principal.keyName === undefined ? {} : { name: principal.keyName }),
    access: principal.access,
    tools: restriction(principal.toolPatterns),
    sources: restriction(principal.sourcePatterns),
    expires_at: expiresAt(principal),
  };
}

function limitRecord(usage: RuleUsage, now: number) {
  return {
    policy: usage.rule.policy,
    kind: usage.rule.kind,
    limit: usage.rule.limit,
    window_seconds: Math.ceil(usage.rule.periodMs / 1000),
    used: usage.used,
    remaining: usage.remaining,
    resets_at: new Date(now + usage.resetMs).toISOString(),
  };
}

export function registerUsageRoute(app: FastifyInstance, limiter: RateLimiter, prefix: () => string): void {
  app.get('/agent/usage', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const rules = requestRules(
      prefix(),
      principal.workspace,
      { id: principal.keyId, limits: principal.limits },
      'any',
    );
    const usage = await limiter.peek(rules);
    const now = Date.now();
    return sendAgentBody(request, reply, {
      key: keyRecord(principal),
      limits: usage.map((entry) => limitRecord(entry, now)),
    });
  });
}
