// Response format negotiation shared by every agent endpoint (spec §4.1 rule 2, D9): TOON by
// default; JSON when asked for by `?response_format=json`, by `Accept: application/json`, or (for
// request bodies) by `options.response_format`. An explicit parameter beats the Accept header.
import { encode } from '@toon-format/toon';
import { GatewayError } from '../errors/index.js';
import { wellFormed } from '../platform/well-formed-text.js';

export type ResponseFormat = 'toon' | 'json';

export const TOON_CONTENT_TYPE = 'text/toon; charset=utf-8';
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';

export function parseFormatValue(value: unknown, path: string): ResponseFormat | undefined {
  if (value === undefined) return undefined;
  if (value === 'json' || value === 'toon') return value;
  throw new GatewayError('invalid_request', `${path} must be "json" or "toon".`, {
    details: [{ path, problem: 'must be "json" or "toon"' }],
  });
}

/** Picks the format from the query string, an explicit body option, then the Accept header. */
export function negotiateFormat(input: {
  query?: unknown;
  bodyOption?: unknown;
  accept?: string | undefined;
}): ResponseFormat {
  const queryValue = (input.query as Record<string, unknown> | undefined)?.['response_format'];
  const fromQuery = parseFormatValue(queryValue, 'response_format');
  if (fromQuery !== undefined) return fromQuery;
  const fromBody = parseFormatValue(input.bodyOption, 'options.response_format');
  if (fromBody !== undefined) return fromBody;
  return prefersJson(input.accept) ? 'json' : 'toon';
}

function prefersJson(accept: string | undefined): boolean {
  if (accept === undefined) return false;
  // Media ranges with q=0 are explicitly unacceptable and do not count.
  const types = accept
    .split(',')
    .filter((part) => !/;\s*q=0(\.0*)?\s*(;|$)/i.test(part))
    .map((part) => part.split(';')[0]?.trim().toLowerCase() ?? '');
  if (types.includes('text/toon')) return false;
  return types.includes('application/json');
}

/** Encodes a REST body; text is made well-formed first and the body ends with a newline. */
export function encodeBody(body: unknown, format: ResponseFormat): { payload: string; contentType: string } {
  const safe = wellFormed(body);
  if (format === 'json') return { payload: `${JSON.stringify(safe)}\n`, contentType: JSON_CONTENT_TYPE };
  return { payload: `${encode(safe)}\n`, contentType: TOON_CONTENT_TYPE };
}
