// The guardrail steps of resources/read and prompts/get (issue 41 part 5, DESIGN D26), like those of
// tools/call (tools-call-guardrails.ts): after visibility, request hooks; then the relay; then
// masking and response hooks, before the caller and the audit record. A prompt's request hooks see
// and may rewrite its arguments, never its name. A read's request hooks see its params (`{uri}`);
// a rewritten URI must resolve, for the same key, to the same source, so a hook can narrow a read
// but never point it at a source (or tenant) the key could not read: anything else is the hook's
// failure (`retargeted`), under its failure policy.
import type { McpSourceConfig } from '../config/index.js';
import { GuardrailHooks, type GuardQuestion, type HookTarget } from '../governance/index.js';
import { resolveResourceUri, type ResolvedUri } from './item-names.js';
import type { McpRequest, McpResult } from './mcp-request.js';
import type { FanOutDeps } from './source-fanout.js';
import { guardedResult, maskedError, refusal } from './tools-call-guardrails.js';

const NO_HOOKS = new GuardrailHooks();

export interface ItemRead {
  readonly source: McpSourceConfig;
  /** The URI as the client wrote it. */
  readonly requested: string;
  readonly resolved: ResolvedUri;
}

/** Request hooks on a read, the relay of the (possibly rewritten) read, masking and response hooks. */
export async function guardedRead(
  hooks: GuardrailHooks | undefined,
  deps: FanOutDeps,
  request: McpRequest,
  read: ItemRead,
  relay: (read: ItemRead) => Promise<McpResult>,
): Promise<McpResult> {
  const principal = request.principal;
  const resolvedBy = new Map<string, ResolvedUri>();
  const accept = async (value: Record<string, unknown>) => {
    const resolved = await resolveResourceUri(deps, principal, String(value['uri']));
    if (resolved?.source !== read.source.name) return false;
    resolvedBy.set(String(value['uri']), resolved);
    return true;
  };
  const target = (requested: string, resolved: ResolvedUri): HookTarget => ({
    kind: 'resource',
    source: read.source.name,
    uri: requested,
    upstreamUri: resolved.uri,
  });
  return guarded(hooks ?? NO_HOOKS, request, {
    method: 'resources/read',
    target: target(read.requested, read.resolved),
    payload: { uri: read.requested },
    accept,
    relay: async (params) => {
      const requested = String(params['uri']);
      const resolved = resolvedBy.get(requested) ?? read.resolved;
      return { target: target(requested, resolved), result: await relay({ ...read, requested, resolved }) };
    },
  });
}

export interface ItemPrompt {
  readonly source: McpSourceConfig;
  /** The prompt's name as the client wrote it, and the source's own. */
  readonly name: string;
  readonly upstreamName: string;
  readonly args: Record<string, string> | undefined;
}

/** Request hooks on a prompt's arguments, the relay, masking and response hooks. */
export function guardedPrompt(
  hooks: GuardrailHooks | undefined,
  request: McpRequest,
  prompt: ItemPrompt,
  relay: (args: Record<string, string> | undefined) => Promise<McpResult>,
): Promise<McpResult> {
  const target: HookTarget = {
    kind: 'prompt',
    source: prompt.source.name,
    name: prompt.name,
    upstreamName: prompt.upstreamName,
  };
  return guarded(hooks ?? NO_HOOKS, request, {
    method: 'prompts/get',
    target,
    payload: prompt.args ?? {},
    relay: async (args, rewritten) => ({
      target,
      // Only a rewrite replaces the arguments (hook-wire.ts checked they are strings).
      result: await relay(rewritten ? (args as Record<string, string>) : prompt.args),
    }),
  });
}

interface ItemStep {
  readonly method: 'resources/read' | 'prompts/get';
  readonly target: HookTarget;
  readonly payload: Record<string, unknown>;
  readonly accept?: GuardQuestion['accept'];
  /** Relays with the approved request; answers with the target the response hooks are asked about. */
  readonly relay: (
    payload: Record<string, unknown>,
    rewritten: boolean,
  ) => Promise<{ readonly target: HookTarget; readonly result: McpResult }>;
}

async function guarded(hooks: GuardrailHooks, request: McpRequest, step: ItemStep): Promise<McpResult> {
  const question = { method: step.method, principal: request.principal, signal: request.signal };
  const named = (target: HookTarget) => (target.kind === 'resource' ? target.uri : target.name);
  const asked = await hooks.run({
    ...question,
    target: step.target,
    phase: 'request',
    payload: step.payload,
    ...(step.accept === undefined ? {} : { accept: step.accept }),
  });
  if (asked.kind !== 'pass') throw refusal(asked, named(step.target), 'request');
  let relayed: { readonly target: HookTarget; readonly result: McpResult };
  try {
    relayed = await step.relay(asked.value, asked.rewritten);
  } catch (error) {
    throw maskedError(request, error);
  }
  return guardedResult(hooks, { ...question, target: relayed.target }, relayed.result, named(relayed.target));
}
