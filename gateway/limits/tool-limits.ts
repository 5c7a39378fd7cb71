// Limits per tool and per identity (issue 41 part 4, DESIGN D26): the `governance.toolLimits` of the
// caller's workspace whose tool patterns match a permitted call, as counters of the shared limiter
// (GCRA rates per minute and hour, a UTC-day quota), checked all-or-nothing in one admission. Only
// the face calls this, after visibility and policy, so a tool the caller cannot see never reaches a
// counter. Counter names hold digests only (workspace, limit, identity): never a subject or key id.
import { matchesAny, type Principal } from '../auth/index.js';
import type { ToolLimitConfig, ToolLimitScope } from '../config/index.js';
import { keyDigest } from '../shared-state/key-digest.js';
import { DAY_MS, type LimitRule } from './limit-rules.js';
import type { RateLimiter } from './rate-limiter.js';
import { workspaceTag } from './request-rules.js';

export type ToolLimitWindow = 'minute' | 'hour' | 'day';

/** A counter of one tool limit, and what it is, for the refusal and the metric. */
export interface ToolLimitRule extends LimitRule {
  readonly limitName: string;
  readonly per: ToolLimitScope;
  readonly window: ToolLimitWindow;
}

export interface ToolLimitRefusal {
  readonly rule: ToolLimitRule;
  /** When the call could be admitted; at least 1 ms. */
  readonly retryAfterMs: number;
  /** Until the refusing counter is back to full. */
  readonly resetMs: number;
  readonly remaining: number;
}

/** Whose calls one counter holds: none for the workspace; the caller (an OAuth identity's key id is
 * already a digest of workspace, issuer and subject; an API key's is its id); or, for `key`, the
 * API key or the identity rule that admitted an OAuth caller. Hashed again into the counter name. */
function identityOf(principal: Principal, per: ToolLimitScope): string | undefined {
  if (per === 'workspace') return undefined;
  if (per === 'key' && principal.oidc !== undefined) return `rule\0${principal.oidc.rule}`;
  return `caller\0${principal.keyId}`;
}

const WINDOWS: readonly {
  readonly window: ToolLimitWindow;
  readonly field: 'callsPerMinute' | 'callsPerHour' | 'callsPerDay';
  readonly kind: LimitRule['kind'];
  readonly periodMs: number;
}[] = [
  { window: 'minute', field: 'callsPerMinute', kind: 'rate', periodMs: 60_000 },
  { window: 'hour', field: 'callsPerHour', kind: 'rate', periodMs: 3_600_000 },
  { window: 'day', field: 'callsPerDay', kind: 'quota', periodMs: DAY_MS },
];

/** The counters one call to `tool` (its namespaced name, what key patterns match) is checked
 * against: every window of every limit whose patterns match it. */
export function toolLimitRules(prefix: string, principal: Principal, tool: string): ToolLimitRule[] {
  if (!limitsTools(principal)) return [];
  const limits: readonly ToolLimitConfig[] = principal.workspace.governance.toolLimits ?? [];
  const rules: ToolLimitRule[] = [];
  let tag: string | undefined;
  for (const limit of limits) {
    if (!matchesAny(limit.tools, tool)) continue;
    tag ??= workspaceTag(prefix, principal.workspace.name);
    const identity = identityOf(principal, limit.per);
    const scope = `${tag}:tool:${keyDigest(`tool-limit\0${limit.name}`)}:${limit.per}${identity === undefined ? '' : `:${keyDigest(identity)}`}`;
    for (const { window, field, kind, periodMs } of WINDOWS) {
      const count = limit[field];
      if (count !== undefined)
        rules.push({
          key: `${scope}:${window}`,
          policy: `tool-${limit.name}-${window}`,
          kind,
          limit: count,
          periodMs,
          limitName: limit.name,
          per: limit.per,
          window,
        });
    }
  }
  return rules;
}

/** Whether the caller's workspace limits tool calls at all; without limits `admit` admits every call,
 * and the relay path skips it (issue 45). */
export function limitsTools(principal: Principal): boolean {
  const limits = principal.workspace.governance.toolLimits;
  return limits !== undefined && limits.length > 0;
}

/** The tool limits of the shared limiter (Redis across replicas, the in-memory twin embedded). */
export class ToolLimits {
  constructor(
    private readonly limiter: RateLimiter,
    private readonly prefix: () => string,
  ) {}

  /** Counts the call against every matching limit when all admit it; otherwise counts nothing and
   * says which limit refused. */
  async admit(principal: Principal, tool: string): Promise<ToolLimitRefusal | undefined> {
    const rules = toolLimitRules(this.prefix(), principal, tool);
    if (rules.length === 0) return undefined;
    const verdict = await this.limiter.admit(rules);
    if (verdict.allowed) return undefined;
    // The limiter answers with one of the rules it was given; refused either way (never fail open).
    const rule = (rules.find((candidate) => candidate === verdict.rule) ?? rules[0]) as ToolLimitRule;
    return {
      rule,
      retryAfterMs: Math.max(1, verdict.retryAfterMs),
      resetMs: verdict.resetMs,
      remaining: verdict.remaining,
    };
  }
}
