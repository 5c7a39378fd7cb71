// The limits step of tools/call (issue 41 part 4, DESIGN D26: visibility → pinned definition →
// policy → limits → guardrails): a permitted call is counted against the workspace's tool limits
// that match it, or refused like every other rate limit on /mcp — HTTP 429, Retry-After and the
// RateLimit fields, the JSON-RPC error -31018 `rate_limited` naming the limit, never whose counter.
import type { Principal } from '../auth/index.js';
import type { CatalogTool } from '../discovery/index.js';
import { catalogueEntry } from '../errors/index.js';
import type { ToolLimitRefusal, ToolLimits } from '../limits/tool-limits.js';
import { noteDenial } from '../telemetry/audit-context.js';
import { count } from '../telemetry/metrics.js';
import { McpError } from './jsonrpc.js';
import type { McpRequest } from './mcp-request.js';
import { RequestStateSeal } from './request-state-seal.js';

const FIELD = { minute: 'callsPerMinute', hour: 'callsPerHour', day: 'callsPerDay' } as const;

/** Counts the call or throws the refusal. A bridged call's continuation (the client's retry with the
 * gateway's sealed `requestState`) is the call that was counted when it started: it only resumes
 * that call (a forged seal is refused there), so it is not counted again. */
export async function admitToolCall(
  limits: ToolLimits,
  request: McpRequest,
  tool: CatalogTool,
): Promise<void> {
  if (RequestStateSeal.isOurs(request.params['requestState'])) return;
  const { principal } = request;
  const refusal = await limits.admit(principal, tool.name);
  if (refusal === undefined) return;
  const { rule } = refusal;
  noteDenial(rule.kind === 'quota' ? 'quota_exceeded' : 'rate_limited');
  // A closed label set: three scopes by three windows (the limit's name is in the audit and the answer).
  count('agw.ratelimit.refusals', { policy: `tool-${rule.per}-${rule.window}` });
  throw toolLimitReached(refusal, principal);
}

function toolLimitReached({ rule, retryAfterMs, resetMs }: ToolLimitRefusal, principal: Principal): McpError {
  const entry = catalogueEntry('rate_limited');
  const retryAfterS = Math.max(1, Math.ceil(retryAfterMs / 1000));
  const windowS = Math.ceil(rule.periodMs / 1000);
  const whose =
    rule.per === 'workspace'
      ? 'this workspace'
      : rule.per === 'subject'
        ? 'this caller'
        : principal.oidc === undefined
          ? 'this key'
          : 'this sign-in rule';
  return new McpError(
    entry.status,
    entry.jsonRpcCode,
    `The tool limit "${rule.limitName}" (${rule.limit} calls per ${rule.window} for ${whose}) is reached; retry after ${retryAfterS} s.`,
    {
      code: 'rate_limited',
      class: entry.errorClass,
      retryAfterSeconds: retryAfterS,
      limit: { toolLimit: rule.limitName, per: rule.per, [FIELD[rule.window]]: rule.limit },
    },
    entry.errorClass,
    {
      'retry-after': String(retryAfterS),
      'ratelimit-policy': `"${rule.policy}";q=${rule.limit};w=${windowS}`,
      ratelimit: `"${rule.policy}";r=0;t=${Math.ceil(resetMs / 1000)}`,
    },
  );
}
