// The consent step for `user` sources (issue 42) on tools/call, resources/read and prompts/get (the
// methods MRTR allows), after the call is permitted and before anything is relayed: a caller with no connection at the source is asked to connect through
// a URL elicitation, in the form its era has —
// - 2026-07-28: an `input_required` result whose one input request is `elicitation/create` in URL
//   mode, with a sealed `requestState` bound to workspace, principal, source and tool; the client's
//   retry carries it back, and once the user has connected the call goes on (the gateway's state and
//   the answers are removed first: the upstream never sees them). A client that did not declare URL
//   elicitation gets a tool error whose text carries the link (it must not be sent an input request
//   it cannot answer).
// - 2025-11-25: the `-32042` URLElicitationRequiredError with the elicitation in `data`; the client
//   retries the call after the user finished.
// A connection that goes away mid-call (revoked, its refresh refused) is answered the same way.
import { randomUUID } from 'node:crypto';
import type { McpSourceConfig } from '../config/index.js';
import { ConsentSeal, findConsentRequired, type UserConnections } from '../connections/index.js';
import { catalogueEntry } from '../errors/index.js';
import { RPC } from '../protocol/index.js';
import { noteAudit } from '../telemetry/audit-context.js';
import { McpError } from './jsonrpc.js';
import type { McpRequest, McpResult } from './mcp-request.js';
import { clientCapabilitiesOf } from './task-asks.js';
import type { PermittedCall } from './tools-call-relay.js';

/** The input request key of the connect elicitation. */
export const CONNECT_INPUT = 'agw_connect';

export type ConsentGate = { readonly request: McpRequest } | { readonly answer: McpResult };

/** What the consent step needs of a call: its source and the name the client called. */
type ConsentCall = Pick<PermittedCall, 'source' | 'requested'>;

/** Whether calls to `source` need the caller's own connection (a `user` credential). */
export function needsConsent(source: McpSourceConfig): boolean {
  return source.credential?.type === 'user';
}

function targetOf(request: McpRequest, source: McpSourceConfig) {
  return {
    workspace: request.principal.workspace.name,
    principal: request.principal.keyId,
    source: source.name,
  };
}

/** Lets the call on (its own state stripped) when the caller is connected; else the elicitation. */
export async function requireConnection(
  connections: UserConnections | undefined,
  request: McpRequest,
  call: ConsentCall,
): Promise<ConsentGate> {
  if (!needsConsent(call.source)) return { request };
  if (connections === undefined) throw catalogueError();
  const target = targetOf(request, call.source);
  const state = request.params['requestState'];
  const ours = ConsentSeal.isRetryState(state);
  if (ours && !connections.seal.retryMatches(state, target, call.requested))
    throw new McpError(200, RPC.invalidParams, 'Invalid or expired requestState.');
  if (!(await connections.connected(target))) return { answer: consentAnswer(connections, request, call) };
  if (!ours) return { request };
  const { requestState: _state, inputResponses: _answers, ...params } = request.params;
  return { request: { ...request, params } };
}

function isConsentFailure(error: unknown): boolean {
  return (
    findConsentRequired(error) !== undefined ||
    (error instanceof McpError && error.data?.['code'] === 'upstream_consent_required')
  );
}

/** The call could not be resolved because its `user` source could not be listed for a caller with
 * no connection there (no list cached yet): the caller is asked to connect, as for a listed tool.
 * Only for a source the key may see (the failure names it only then); anything else is rethrown. */
export function consentForUnlisted(
  connections: UserConnections | undefined,
  request: McpRequest,
  requested: string,
  error: unknown,
): McpResult {
  const named = error instanceof McpError ? error.data?.['source'] : undefined;
  const source = request.principal.workspace.mcpSources.find((candidate) => candidate.name === named);
  if (connections === undefined || source === undefined || !needsConsent(source) || !isConsentFailure(error))
    throw error;
  const state = request.params['requestState'];
  if (
    ConsentSeal.isRetryState(state) &&
    !connections.seal.retryMatches(state, targetOf(request, source), requested)
  )
    throw new McpError(200, RPC.invalidParams, 'Invalid or expired requestState.');
  return consentAnswer(connections, request, { source, requested });
}

/** Runs the relay; a connection found missing on the way is answered with the elicitation. */
export async function withConsent(
  connections: UserConnections | undefined,
  request: McpRequest,
  call: ConsentCall,
  relay: () => Promise<McpResult>,
): Promise<McpResult> {
  if (connections === undefined || !needsConsent(call.source)) return relay();
  try {
    return await relay();
  } catch (error) {
    if (!isConsentFailure(error)) throw error;
    return consentAnswer(connections, request, call);
  }
}

function catalogueError(): McpError {
  const entry = catalogueEntry('upstream_consent_required');
  return new McpError(
    200,
    entry.jsonRpcCode,
    entry.message,
    { code: 'upstream_consent_required' },
    entry.errorClass,
  );
}

function consentAnswer(connections: UserConnections, request: McpRequest, call: ConsentCall): McpResult {
  const target = targetOf(request, call.source);
  if (!connections.canConsent) {
    const entry = catalogueEntry('upstream_consent_required');
    throw new McpError(
      200,
      entry.jsonRpcCode,
      `${call.source.name} acts as each user, but this gateway has no server.publicUrl to send you to connect: an admin must set it.`,
      { code: 'upstream_consent_required', source: call.source.name },
      entry.errorClass,
    );
  }
  const url = connections.consentUrl(target);
  const message = `To use ${call.requested}, connect your ${call.source.name} account: open the link, sign in there and approve, then retry.`;
  noteAudit({ consentRequired: true });
  if (request.era === 'legacy') {
    throw new McpError(
      200,
      catalogueEntry('upstream_consent_required').jsonRpcCode,
      message,
      { elicitations: [{ mode: 'url', elicitationId: randomUUID(), url, message }] },
      'upstream_authorization',
    );
  }
  const elicitation = clientCapabilitiesOf(request.params)['elicitation'];
  const urlMode = typeof elicitation === 'object' && elicitation !== null && 'url' in elicitation;
  if (!urlMode) return { content: [{ type: 'text', text: `${message} ${url}` }], isError: true };
  return {
    resultType: 'input_required',
    inputRequests: {
      [CONNECT_INPUT]: { method: 'elicitation/create', params: { mode: 'url', message, url } },
    },
    requestState: connections.seal.retryState(target, call.requested),
  };
}

/** resources/read and prompts/get of a visible source: the connection step around the read (the
 * read itself takes the request's own parameters, so the gateway's state never reaches it). */
export async function withConnection(
  connections: UserConnections | undefined,
  request: McpRequest,
  call: ConsentCall,
  read: () => Promise<McpResult>,
): Promise<McpResult> {
  const gate = await requireConnection(connections, request, call);
  if ('answer' in gate) return gate.answer;
  return withConsent(connections, gate.request, call, read);
}
