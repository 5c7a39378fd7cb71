// The W3C trace context a client sends in an MCP request's `params._meta` (SEP-414: the unprefixed
// keys `traceparent`, `tracestate`, `baggage`, in W3C Trace Context and W3C Baggage format), checked
// strictly and bounded before anything reads it. A value that fails is dropped on its own, silently:
// never an error, never a log line (it is the client's text). A bad `traceparent` drops all three
// (the others mean nothing without it); a bad `tracestate` or `baggage` drops only itself.

/** The checked keys; `traceparent` is always present. */
export interface TraceCarrier {
  readonly traceparent: string;
  readonly tracestate?: string;
  readonly baggage?: string;
}

/** Version 00 only, exactly 55 characters, lower-case hex (W3C Trace Context §3.2). */
const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-[0-9a-f]{2}$/;
const ZERO_TRACE = '0'.repeat(32);
const ZERO_SPAN = '0'.repeat(16);

/** W3C Trace Context §3.3: at most 32 list members; 512 characters is what every vendor must pass on. */
const TRACESTATE_MAX_CHARS = 512;
const TRACESTATE_MAX_MEMBERS = 32;
const TRACESTATE_KEY =
  /^(?:[a-z][_0-9a-z\-*/]{0,255}|[a-z0-9][_0-9a-z\-*/]{0,240}@[a-z][_0-9a-z\-*/]{0,13})$/;
const TRACESTATE_VALUE = /^[\x20-\x2b\x2d-\x3c\x3e-\x7e]{0,255}[\x21-\x2b\x2d-\x3c\x3e-\x7e]$/;

/** W3C Baggage §3.3: 64 list members and 8192 bytes are what every platform must pass on. */
const BAGGAGE_MAX_CHARS = 8192;
const BAGGAGE_MAX_MEMBERS = 64;
const TOKEN = "[!#$%&'*+\\-.^_`|~0-9A-Za-z]+";
const BAGGAGE_VALUE = '[\\x21\\x23-\\x2b\\x2d-\\x3a\\x3c-\\x5b\\x5d-\\x7e]*';
const BAGGAGE_MEMBER = new RegExp(
  `^[ \\t]*${TOKEN}[ \\t]*=[ \\t]*${BAGGAGE_VALUE}[ \\t]*(?:;[ \\t]*${TOKEN}[ \\t]*(?:=[ \\t]*${BAGGAGE_VALUE}[ \\t]*)?)*$`,
);

function validTraceparent(value: unknown): value is string {
  if (typeof value !== 'string' || value.length !== 55) return false;
  const match = TRACEPARENT.exec(value);
  return match !== null && match[1] !== ZERO_TRACE && match[2] !== ZERO_SPAN;
}

/** Lists are split on commas; empty members (OWS only) are allowed and not counted (W3C). */
function members(value: string): string[] {
  return value.split(',').filter((member) => member.trim() !== '');
}

function validTracestate(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > TRACESTATE_MAX_CHARS) return false;
  const list = members(value);
  if (list.length === 0 || list.length > TRACESTATE_MAX_MEMBERS) return false;
  const keys = new Set<string>();
  for (const member of list) {
    const trimmed = member.replace(/^[ \t]+|[ \t]+$/g, '');
    const equals = trimmed.indexOf('=');
    if (equals <= 0) return false;
    const key = trimmed.slice(0, equals);
    if (!TRACESTATE_KEY.test(key) || !TRACESTATE_VALUE.test(trimmed.slice(equals + 1))) return false;
    if (keys.has(key)) return false;
    keys.add(key);
  }
  return true;
}

function validBaggage(value: unknown): value is string {
  if (typeof value !== 'string' || value.length === 0 || value.length > BAGGAGE_MAX_CHARS) return false;
  const list = members(value);
  return list.length > 0 && list.length <= BAGGAGE_MAX_MEMBERS && list.every((m) => BAGGAGE_MEMBER.test(m));
}

/** The checked trace context of a request's `_meta`, or undefined when it carries no valid one. */
export function traceCarrierOf(meta: unknown): TraceCarrier | undefined {
  if (typeof meta !== 'object' || meta === null || Array.isArray(meta)) return undefined;
  const { traceparent, tracestate, baggage } = meta as Record<string, unknown>;
  if (!validTraceparent(traceparent)) return undefined;
  return {
    traceparent,
    ...(validTracestate(tracestate) ? { tracestate } : {}),
    ...(validBaggage(baggage) ? { baggage } : {}),
  };
}

/** The `_meta` keys that carry trace context: a client's own are never relayed as they came. */
export const TRACE_META_KEYS = ['traceparent', 'tracestate', 'baggage'] as const;
