import { describe, expect, it } from 'vitest';
import {
  decodeMirroredValue,
  encodeMirroredValue,
  headerValueFor,
  mirrors,
} from '../../../gateway/mcp/index.js';
import { annotatedParams, paramHeaderMismatch } from '../../../gateway/mcp/param-headers.js';

describe('mirrored header values', () => {
  it('decodes the Base64 sentinel and leaves plain values alone', () => {
    expect(decodeMirroredValue('=?base64?ZWNobw==?=')).toBe('echo');
    expect(decodeMirroredValue('echo')).toBe('echo');
    expect(decodeMirroredValue('=?base64?/w==?=')).toBeUndefined();
  });
  it('encodes unsafe values (non-ASCII, surrounding spaces, sentinel look-alikes) as Base64', () => {
    expect(encodeMirroredValue('plain-value')).toBe('plain-value');
    for (const value of ['Zürich', ' padded', '=?base64?x?=']) {
      const encoded = encodeMirroredValue(value);
      expect(encoded.startsWith('=?base64?')).toBe(true);
      expect(decodeMirroredValue(encoded)).toBe(value);
    }
  });
  it('compares integers numerically and booleans as words', () => {
    expect(mirrors('42', 42)).toBe(true);
    expect(mirrors('42.0', 42)).toBe(true);
    expect(mirrors('41', 42)).toBe(false);
    expect(mirrors('true', true)).toBe(true);
    expect(mirrors('TRUE', true)).toBe(false);
    expect(mirrors('x', { x: 1 })).toBe(false);
    expect(headerValueFor(null)).toBeUndefined();
    expect(headerValueFor(7)).toBe('7');
  });
});

describe('Mcp-Param headers', () => {
  const schema = {
    type: 'object',
    properties: {
      region: { type: 'string', 'x-mcp-header': 'Region' },
      n: { type: 'integer', 'x-mcp-header': 'N' },
      free: { type: 'string' },
    },
  };
  const params = annotatedParams(schema);

  it('finds top-level x-mcp-header annotations', () => {
    expect(params).toEqual([
      { property: 'region', header: 'Region' },
      { property: 'n', header: 'N' },
    ]);
  });
  it('accepts matching headers and absent arguments without headers', () => {
    expect(
      paramHeaderMismatch(params, { region: 'eu', n: 3 }, { 'mcp-param-region': 'eu', 'mcp-param-n': '3' }),
    ).toBeUndefined();
    expect(paramHeaderMismatch(params, { free: 'x' }, {})).toBeUndefined();
  });
  it('names the first missing, differing or orphan header', () => {
    expect(paramHeaderMismatch(params, { region: 'eu' }, {})).toBe('Mcp-Param-Region');
    expect(paramHeaderMismatch(params, { region: 'eu' }, { 'mcp-param-region': 'us' })).toBe(
      'Mcp-Param-Region',
    );
    expect(paramHeaderMismatch(params, {}, { 'mcp-param-n': '1' })).toBe('Mcp-Param-N');
  });
});
