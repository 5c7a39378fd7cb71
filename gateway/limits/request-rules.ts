// Which counters a request is checked against: the key's and the workspace's request rates (every
// authenticated request) and, for tool calls and searches, their daily quotas. Keys carry a Redis
// Cluster hash tag of the workspace, so one request's counters share a slot and one script serves.
// `any` names every counter a key has (GET /agent/usage reads them all).
// Workspace names and key ids appear only as digests (issue 28.8): `agw:{<d(ws)>}:key:<d(id)>:minute`.
import type { LimitsConfig } from '../config/index.js';
import { keyDigest } from '../shared-state/key-digest.js';
import type { LimitRule } from './limit-rules.js';

export type RequestKind = 'request' | 'tool-call' | 'search' | 'any';

function rulesOf(
  limits: LimitsConfig | undefined,
  scope: string,
  label: string,
  kind: RequestKind,
): LimitRule[] {
  if (limits === undefined) return [];
  const rules: LimitRule[] = [];
  const add = (name: string, ruleKind: LimitRule['kind'], limit: number | undefined, periodMs: number) => {
    if (limit !== undefined)
      rules.push({ key: `${scope}:${name}`, policy: `${label}-${name}`, kind: ruleKind, limit, periodMs });
  };
  add('second', 'rate', limits.requestsPerSecond, 1000);
  add('minute', 'rate', limits.requestsPerMinute, 60_000);
  if (kind === 'tool-call' || kind === 'any')
    add('tool-calls-day', 'quota', limits.toolCallsPerDay, 86_400_000);
  if (kind === 'search' || kind === 'any') add('searches-day', 'quota', limits.searchesPerDay, 86_400_000);
  return rules;
}

export function requestRules(
  prefix: string,
  workspace: { readonly name: string; readonly limits?: LimitsConfig | undefined },
  key: { readonly id: string; readonly limits?: LimitsConfig | undefined },
  kind: RequestKind,
): LimitRule[] {
  if (key.limits === undefined && workspace.limits === undefined) return [];
  const tag = workspaceTag(prefix, workspace.name);
  return [
    ...rulesOf(key.limits, `${tag}:key:${keyDigest(`key\0${key.id}`)}`, 'key', kind),
    ...rulesOf(workspace.limits, `${tag}:workspace`, 'workspace', kind),
  ];
}

/** The start of every counter name of a workspace: the prefix and the workspace's digest as a Redis
 * Cluster hash tag, so all counters one request checks share a slot. */
export function workspaceTag(prefix: string, workspace: string): string {
  return `${prefix}{${keyDigest(`workspace\0${workspace}`)}}`;
}
