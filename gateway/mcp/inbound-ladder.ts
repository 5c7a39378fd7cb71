// The inbound validation ladder for POST /mcp (docs/mcp-2026.md §2.2, §2.6, gateway duties 1–5):
// an ordered list of pure rungs; each returns a rejection or nothing and never throws. The outcome
// is a classified request (modern or legacy era) or notification, or the first rejection. The body
// must be valid UTF-8 (a decoder would otherwise forward U+FFFD in place of the bytes sent). Mirrored
// headers that are present must match the body in every era (issue 8.2): only their presence is a
// modern-era requirement, so a 2025-era client cannot steer an intermediary with a lying header.
import { idEchoesExactly } from '../platform/exact-rpc-id.js';
import { MAX_PARAMS_DEPTH, nestsDeeperThan } from './params-depth.js';
import { McpError, type JsonRpcId } from './jsonrpc.js';
import {
  LEGACY_DEFAULT_VERSION,
  LEGACY_VERSIONS,
  META,
  NAMED_METHODS,
  RPC,
  SUPPORTED_MODERN_VERSIONS,
  isModernClaim,
} from '../protocol/index.js';
import { mirrors } from './header-mirror.js';
import { strictUtf8 } from '../platform/strict-utf8.js';
import { isRecord } from '../platform/is-record.js';

export interface InboundHttp {
  readonly httpMethod: string;
  readonly contentType: string | undefined;
  readonly protocolVersionHeader: string | undefined;
  readonly methodHeader: string | undefined;
  readonly nameHeader: string | undefined;
  /** The raw body bytes; decoded here, strictly. */
  readonly body: Uint8Array;
}

export type Era = 'modern' | 'legacy';

export interface InboundMessage {
  readonly id: JsonRpcId | undefined;
  readonly method: string;
  readonly params: Record<string, unknown>;
}

export type LadderOutcome =
  | { readonly kind: 'reject'; readonly id: JsonRpcId | null; readonly error: McpError }
  | {
      readonly kind: 'request';
      readonly era: Era;
      readonly version: string;
      readonly message: InboundMessage & { id: JsonRpcId };
    }
  | { readonly kind: 'notification'; readonly era: Era; readonly message: InboundMessage }
  /** A JSON-RPC response (`result` or `error`, no method): a client answering a server→client
   * request; whether it answers anything is decided later, the same way for every mismatch. */
  | { readonly kind: 'response'; readonly era: Era; readonly response: InboundResponse };

export interface InboundResponse {
  readonly id: unknown;
  readonly result?: unknown;
  readonly error?: unknown;
}

interface LadderState {
  readonly http: InboundHttp;
  message?: InboundMessage;
  response?: InboundResponse;
  /** The id's text could not be read back: never echo it. */
  idUnreadable?: boolean;
  era?: Era;
  version?: string;
}

type Rung = (state: LadderState) => McpError | undefined;

const reject400 = (code: number, message: string, data?: Record<string, unknown>) =>
  new McpError(400, code, message, data);

const httpMethodRung: Rung = ({ http }) =>
  http.httpMethod === 'POST'
    ? undefined
    : new McpError(405, RPC.transport, 'Method not allowed.', undefined, 'request', { allow: 'POST' });

const contentTypeRung: Rung = ({ http }) => {
  const type = http.contentType?.split(';')[0]?.trim().toLowerCase();
  return type === 'application/json'
    ? undefined
    : new McpError(415, RPC.transport, 'Unsupported Media Type: Content-Type must be application/json.');
};

const parseRung: Rung = (state) => {
  const text = strictUtf8(state.http.body);
  if (text === undefined) return reject400(RPC.parseError, 'Parse error: the body is not valid UTF-8.');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    return reject400(RPC.parseError, 'Parse error: the body is not valid JSON.');
  }
  if (Array.isArray(body))
    return reject400(RPC.invalidRequest, 'Invalid Request: JSON-RPC batches are not supported.');
  if (!isRecord(body) || body['jsonrpc'] !== '2.0')
    return reject400(RPC.invalidRequest, 'Invalid Request: expected a JSON-RPC 2.0 object.');
  if ('result' in body || 'error' in body) {
    if ('method' in body)
      return reject400(RPC.invalidRequest, 'Invalid Request: expected a JSON-RPC 2.0 object.');
    state.response = {
      id: body['id'],
      ...('result' in body ? { result: body['result'] } : { error: body['error'] }),
    };
    return undefined;
  }
  const { id, method, params } = body;
  if (typeof method !== 'string' || method === '')
    return reject400(RPC.invalidRequest, 'Invalid Request: method must be a non-empty string.');
  if (id !== undefined && typeof id !== 'string' && (typeof id !== 'number' || !Number.isFinite(id)))
    return reject400(RPC.invalidRequest, 'Invalid Request: id must be a string or a number.');
  const exact = idEchoesExactly(text, body);
  // Unreadable (nested too deeply to read the id's text): the later rungs refuse it with id null.
  if (exact === 'unreadable') state.idUnreadable = true;
  if (exact === false)
    return reject400(
      RPC.invalidRequest,
      'Invalid Request: this numeric id cannot be echoed exactly (beyond 2^53 or not in shortest form); send it as a string.',
    );
  if (params !== undefined && !isRecord(params))
    return reject400(RPC.invalidRequest, 'Invalid Request: params must be an object.');

  state.message = { id, method, params: params ?? {} };
  return undefined;
};

/** The request rungs: a response has no method, params or mirrored headers to check. */
const forRequests =
  (rung: Rung): Rung =>
  (state) =>
    state.response === undefined ? rung(state) : undefined;

/** Arguments nested past the limit are the caller's mistake, refused before any upstream sees them. */
const depthRung: Rung = (state) =>
  nestsDeeperThan(state.response ?? (state.message as InboundMessage).params, MAX_PARAMS_DEPTH)
    ? reject400(
        RPC.invalidParams,
        `Invalid params: params nest deeper than ${MAX_PARAMS_DEPTH} levels of objects and arrays.`,
        { limit: { maxDepth: MAX_PARAMS_DEPTH } },
      )
    : undefined;

function metaOf(message: InboundMessage): Record<string, unknown> | undefined {
  const meta = message.params['_meta'];
  return isRecord(meta) ? meta : undefined;
}

/** The body value `Mcp-Name` mirrors, or undefined when the method names nothing. */
function namedValue(message: InboundMessage): { field: string; value: unknown } | undefined {
  const field = Object.hasOwn(NAMED_METHODS, message.method) ? NAMED_METHODS[message.method] : undefined;
  return field === undefined ? undefined : { field, value: message.params[field] };
}

const mismatch = (header: string, message: string) =>
  reject400(RPC.headerMismatch, `Header mismatch: ${message}`, { mismatch: { header } });

/** Whatever mirrored header is present must agree with the body, whatever the era. */
const presentMirrorsRung: Rung = (state) => {
  const message = state.message as InboundMessage;
  const { methodHeader, nameHeader } = state.http;
  if (methodHeader !== undefined && methodHeader !== message.method)
    return mismatch('Mcp-Method', 'Mcp-Method must equal the body method.');
  if (nameHeader === undefined) return undefined;
  const named = namedValue(message);
  if (named === undefined) return mismatch('Mcp-Name', `${message.method} names nothing; send no Mcp-Name.`);
  if (typeof named.value !== 'string' || !mirrors(nameHeader, named.value))
    return mismatch('Mcp-Name', `Mcp-Name must equal params.${named.field}.`);
  return undefined;
};

const eraRung: Rung = (state) => {
  const claimed = state.message === undefined ? undefined : metaOf(state.message)?.[META.protocolVersion];
  const header = state.http.protocolVersionHeader;
  state.era = claimed !== undefined || (header !== undefined && isModernClaim(header)) ? 'modern' : 'legacy';
  return undefined;
};

function modernRungs(state: LadderState): McpError | undefined {
  const message = state.message as InboundMessage;
  const http = state.http;
  if (message.id === undefined) return undefined; // header rules for notifications are undefined (spec note)
  if (message.method === 'initialize')
    return reject400(
      RPC.headerMismatch,
      'initialize is not part of the modern protocol; send requests with params._meta instead.',
    );
  if (http.protocolVersionHeader === undefined)
    return reject400(RPC.headerMismatch, 'Header mismatch: MCP-Protocol-Version header is required.');
  const meta = metaOf(message);
  if (meta === undefined)
    return reject400(RPC.invalidParams, 'Invalid params: params._meta is required.', {
      envelope: { missing: ['_meta'] },
    });
  const claimed = meta[META.protocolVersion];
  if (typeof claimed !== 'string')
    return reject400(RPC.invalidParams, `Invalid params: _meta["${META.protocolVersion}"] is required.`, {
      envelope: { key: META.protocolVersion, problem: 'missing' },
    });
  if (claimed !== http.protocolVersionHeader)
    return reject400(
      RPC.headerMismatch,
      'Header mismatch: MCP-Protocol-Version does not match the protocol version in _meta.',
      {
        mismatch: { header: 'MCP-Protocol-Version' },
      },
    );
  if (!SUPPORTED_MODERN_VERSIONS.includes(claimed))
    return reject400(RPC.unsupportedVersion, `Unsupported protocol version: ${claimed}.`, {
      supported: [...SUPPORTED_MODERN_VERSIONS, ...LEGACY_VERSIONS],
      requested: claimed,
    });
  // Values were compared by presentMirrorsRung; the modern era also requires the headers.
  if (http.methodHeader === undefined)
    return mismatch('Mcp-Method', 'Mcp-Method must equal the body method.');
  const named = namedValue(message);
  if (named !== undefined && http.nameHeader === undefined)
    return mismatch('Mcp-Name', `Mcp-Name must equal params.${named.field}.`);
  if (!isRecord(meta[META.clientCapabilities]))
    return reject400(RPC.invalidParams, `Invalid params: _meta["${META.clientCapabilities}"] is required.`, {
      envelope: { key: META.clientCapabilities, problem: 'missing' },
    });
  state.version = claimed;
  return undefined;
}

function legacyRungs(state: LadderState): McpError | undefined {
  const header = state.http.protocolVersionHeader;
  if (header !== undefined && !LEGACY_VERSIONS.includes(header))
    return reject400(RPC.unsupportedVersion, `Unsupported protocol version: ${header}.`, {
      supported: [...SUPPORTED_MODERN_VERSIONS, ...LEGACY_VERSIONS],
      requested: header,
    });
  state.version = header ?? LEGACY_DEFAULT_VERSION;
  return undefined;
}

const eraSpecificRung: Rung = (state) =>
  state.era === 'modern' ? forRequests(modernRungs)(state) : legacyRungs(state);

export const LADDER: readonly Rung[] = [
  httpMethodRung,
  contentTypeRung,
  parseRung,
  depthRung,
  eraRung,
  forRequests(presentMirrorsRung),
  eraSpecificRung,
];

export function runLadder(http: InboundHttp): LadderOutcome {
  const state: LadderState = { http };
  for (const rung of LADDER) {
    const error = rung(state);
    if (error !== undefined) {
      const id = state.idUnreadable === true ? undefined : state.message?.id;
      return { kind: 'reject', id: id ?? null, error };
    }
  }
  if (state.idUnreadable === true)
    return {
      kind: 'reject',
      id: null,
      error: reject400(
        RPC.invalidRequest,
        'Invalid Request: the id cannot be read back exactly; send it as a string.',
      ),
    };
  const era = state.era as Era;
  if (state.response !== undefined) return { kind: 'response', era, response: state.response };
  const message = state.message as InboundMessage;
  if (message.id === undefined) return { kind: 'notification', era, message };
  return { kind: 'request', era, version: state.version as string, message: { ...message, id: message.id } };
}
