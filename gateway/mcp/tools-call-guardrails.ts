// The guardrail steps of tools/call (issue 41 part 5, DESIGN D26; resources/read and prompts/get
// reuse its result step and refusals, item-guardrails.ts): request hooks are the last step
// before the relay, response hooks and secret masking the first after it, so every result the
// relay returns (pooled, byte-faithful, bridged, streamed, resumed) passes them before the caller
// (and the audit record) sees it. A retry of a call that asked the client for input is guarded
// again like any call. Rewritten arguments replace the request's (and the parameter headers are
// derived from them), so what the upstream receives is what the hook approved.
import { catalogueEntry } from '../errors/index.js';
import {
  GuardrailHooks,
  maskSecretsFor,
  type GuardOutcome,
  type GuardQuestion,
  type HookTarget,
} from '../governance/index.js';
import { noteDenial } from '../telemetry/audit-context.js';
import { McpError } from './jsonrpc.js';
import type { McpRequest, McpResult } from './mcp-request.js';
import { annotatedParams } from './param-headers.js';
import type { PermittedCall } from './tools-call-relay.js';
import { derivedParamHeaders } from './upstream-params.js';

export type Relay = (request: McpRequest, call: PermittedCall) => Promise<McpResult>;

/** Request hooks, the relay, then masking and response hooks. */
export async function guardedRelay(
  hooks: GuardrailHooks,
  request: McpRequest,
  call: PermittedCall,
  relay: Relay,
): Promise<McpResult> {
  const target: HookTarget = {
    kind: 'tool',
    source: call.source.name,
    name: call.requested,
    upstreamName: call.tool.upstreamName,
  };
  const question = {
    method: 'tools/call',
    principal: request.principal,
    target,
    signal: request.signal,
  } as const;
  // Without hooks a run passes unchanged: skipped, as is the response run below.
  const [guardedRequest, guardedCall] = GuardrailHooks.noneFor(request.principal)
    ? [request, call]
    : afterRequestHooks(
        await hooks.run({ ...question, phase: 'request', payload: call.args ?? {} }),
        request,
        call,
      );
  let result: McpResult;
  try {
    result = await relay(guardedRequest, guardedCall);
  } catch (error) {
    throw maskedError(request, error);
  }
  // A call waiting for the client's input has no result yet: its retry is guarded when it ends. A
  // task has none either: its result is guarded when tasks/get returns it (dispatch-tasks.ts).
  if (result['resultType'] === 'input_required') return maskSecretsFor(request.principal.workspace, result);
  // The sealed task id is ours, not upstream text: masking must never rewrite it.
  if (result['resultType'] === 'task')
    return { ...maskSecretsFor(request.principal.workspace, result), taskId: result['taskId'] };
  return guardedResult(hooks, question, result, call.requested);
}

/** Masking and the response hooks over a relayed result (tools, resources and prompts alike): the
 * hooks see the masked result, and a rewritten one is masked again. */
export async function guardedResult(
  hooks: GuardrailHooks,
  question: Omit<GuardQuestion, 'phase' | 'payload'>,
  result: McpResult,
  named: string,
): Promise<McpResult> {
  const workspace = question.principal.workspace;
  const masked = maskSecretsFor(workspace, result);
  if (GuardrailHooks.noneFor(question.principal)) return masked;
  const answered = await hooks.run({ ...question, phase: 'response', payload: masked });
  if (answered.kind !== 'pass') throw refusal(answered, named, 'response');
  return answered.rewritten ? maskSecretsFor(workspace, answered.value) : masked;
}

function afterRequestHooks(
  asked: GuardOutcome,
  request: McpRequest,
  call: PermittedCall,
): [McpRequest, PermittedCall] {
  if (asked.kind !== 'pass') throw refusal(asked, call.requested, 'request');
  if (!asked.rewritten) return [request, call];
  const args = asked.value;
  const headers: Record<string, string | string[] | undefined> = {};
  for (const [name, value] of Object.entries(request.headers))
    if (!name.startsWith('mcp-param-')) headers[name] = value;
  Object.assign(headers, derivedParamHeaders(annotatedParams(call.tool.inputSchema), args));
  return [
    { ...request, headers, params: { ...request.params, arguments: args } },
    { ...call, args },
  ];
}

/** A deny is a permission error with the hook's reason; a failure (closed) names the hook only.
 * `tool` names what was asked for (a tool, prompt or resource URI, as the caller wrote it). */
export function refusal(
  outcome: Exclude<GuardOutcome, { kind: 'pass' }>,
  tool: string,
  phase: 'request' | 'response',
): McpError {
  if (outcome.kind === 'deny') {
    const entry = catalogueEntry('forbidden');
    noteDenial('forbidden');
    const why = outcome.reason === undefined ? '' : `: ${outcome.reason}`;
    return new McpError(
      200,
      entry.jsonRpcCode,
      `Permission denied: the guardrail ${outcome.hook} refused ${phase === 'request' ? 'this call to' : 'the result of'} ${tool}${why}`,
      {
        code: 'forbidden',
        class: entry.errorClass,
        guardrail: outcome.hook,
        ...(outcome.reason === undefined ? {} : { reason: outcome.reason }),
      },
      entry.errorClass,
    );
  }
  const entry = catalogueEntry('guardrail_unavailable');
  return new McpError(
    200,
    entry.jsonRpcCode,
    `The guardrail ${outcome.hook} could not decide on ${tool}; ${phase === 'request' ? 'the call was not made' : 'its result was withheld'}.`,
    { code: 'guardrail_unavailable', class: entry.errorClass, guardrail: outcome.hook },
    entry.errorClass,
  );
}

/** The upstream's own error, relayed: its message and data are masked like a result. */
export function maskedError(request: McpRequest, error: unknown): unknown {
  if (!(error instanceof McpError) || error.errorClass !== 'tool_execution') return error;
  const workspace = request.principal.workspace;
  const message = maskSecretsFor(workspace, error.message);
  const data = maskSecretsFor(workspace, error.data);
  if (message === error.message && data === error.data) return error;
  return new McpError(error.httpStatus, error.rpcCode, message, data, error.errorClass, error.headers);
}
