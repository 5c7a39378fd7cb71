import { describe, it, expect } from 'vitest';
import { decode } from '@toon-format/toon';
import { GatewayError } from '../../../gateway/errors/index.js';
import {
  encodeBody,
  JSON_CONTENT_TYPE,
  negotiateFormat,
  parseFormatValue,
  TOON_CONTENT_TYPE,
} from '../../../gateway/rest/response-format.js';

function thrownBy(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  throw new Error('expected a throw');
}

describe('negotiateFormat', () => {
  it('defaults to toon', () => {
    expect(negotiateFormat({})).toBe('toon');
    expect(negotiateFormat({ query: {}, accept: '*/*' })).toBe('toon');
  });

  it('picks json for Accept: application/json, whatever its parameters or case', () => {
    expect(negotiateFormat({ accept: 'application/json' })).toBe('json');
    expect(negotiateFormat({ accept: 'Application/JSON; charset=utf-8' })).toBe('json');
    expect(negotiateFormat({ accept: 'text/html, application/json;q=0.9' })).toBe('json');
  });

  it('picks toon when Accept names text/toon, even next to application/json', () => {
    expect(negotiateFormat({ accept: 'text/toon' })).toBe('toon');
    expect(negotiateFormat({ accept: 'application/json, text/toon' })).toBe('toon');
  });

  it('lets the query parameter beat the Accept header', () => {
    expect(negotiateFormat({ query: { response_format: 'json' }, accept: 'text/toon' })).toBe('json');
    expect(negotiateFormat({ query: { response_format: 'toon' }, accept: 'application/json' })).toBe('toon');
  });

  it('lets the body option beat Accept and the query beat the body option', () => {
    expect(negotiateFormat({ bodyOption: 'json', accept: 'text/toon' })).toBe('json');
    expect(negotiateFormat({ bodyOption: 'toon', accept: 'application/json' })).toBe('toon');
    expect(negotiateFormat({ query: { response_format: 'toon' }, bodyOption: 'json' })).toBe('toon');
  });

  it('rest:format-invalid rejects an invalid query value with invalid_request naming the field', () => {
    const error = thrownBy(() => negotiateFormat({ query: { response_format: 'xml' } }));
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).code).toBe('invalid_request');
    expect((error as GatewayError).entry.status).toBe(400);
    expect((error as GatewayError).message).toContain('response_format');
    expect((error as GatewayError).details).toEqual([
      { path: 'response_format', problem: 'must be "json" or "toon"' },
    ]);
  });

  it('rejects a repeated query parameter', () => {
    expect(() => negotiateFormat({ query: { response_format: ['json', 'toon'] } })).toThrow(GatewayError);
  });

  it('names options.response_format for an invalid body option', () => {
    const error = thrownBy(() => negotiateFormat({ bodyOption: 'JSON' })) as GatewayError;
    expect(error.code).toBe('invalid_request');
    expect(error.details[0]?.path).toBe('options.response_format');
  });
});

describe('parseFormatValue', () => {
  it('passes undefined through and accepts only the two exact values', () => {
    expect(parseFormatValue(undefined, 'f')).toBeUndefined();
    expect(parseFormatValue('json', 'f')).toBe('json');
    expect(parseFormatValue('toon', 'f')).toBe('toon');
    expect(() => parseFormatValue(null, 'f')).toThrow(GatewayError);
    expect(() => parseFormatValue('', 'f')).toThrow(GatewayError);
  });
});

describe('encodeBody', () => {
  const body = {
    tools: [
      { name: 'docs__read', permission: 'read' },
      { name: 'docs__write', permission: 'write' },
    ],
  };

  it('encodes json with the json content type', () => {
    const { payload, contentType } = encodeBody(body, 'json');
    expect(contentType).toBe(JSON_CONTENT_TYPE);
    expect(contentType).toBe('application/json; charset=utf-8');
    expect(JSON.parse(payload)).toEqual(body);
  });

  it('encodes toon with the toon content type, decodable back to the same value', () => {
    const { payload, contentType } = encodeBody(body, 'toon');
    expect(contentType).toBe(TOON_CONTENT_TYPE);
    expect(contentType).toBe('text/toon; charset=utf-8');
    expect(payload).not.toBe(JSON.stringify(body));
    expect(decode(payload)).toEqual(body);
  });
});

describe('negotiateFormat with q-values', () => {
  it('ignores media ranges the client marks unacceptable with q=0', () => {
    expect(negotiateFormat({ accept: 'text/toon;q=0, application/json' })).toBe('json');
    expect(negotiateFormat({ accept: 'application/json;q=0' })).toBe('toon');
  });
});
