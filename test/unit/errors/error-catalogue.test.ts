import { describe, it, expect } from 'vitest';
import {
  catalogueEntry,
  ERROR_CATALOGUE,
  GatewayError,
  isGatewayError,
  type ErrorCode,
} from '../../../gateway/errors/index.js';

const CLASSES = [
  'proxy_authorization',
  'upstream_reachability',
  'upstream_authorization',
  'tool_execution',
  'request',
  'internal',
];
const codes = Object.keys(ERROR_CATALOGUE) as ErrorCode[];

describe('ERROR_CATALOGUE', () => {
  it.each(codes)('%s has a valid status, class, emit place and message', (code) => {
    const entry = ERROR_CATALOGUE[code];
    expect(entry.status).toBeGreaterThanOrEqual(200);
    expect(entry.status).toBeLessThanOrEqual(599);
    expect(Number.isInteger(entry.status)).toBe(true);
    expect(CLASSES).toContain(entry.errorClass);
    expect(['http', 'jsonrpc', 'tool-result']).toContain(entry.emitAs);
    expect(Number.isInteger(entry.jsonRpcCode)).toBe(true);
    expect(entry.message.length).toBeGreaterThan(0);
  });

  it('uses an HTTP error status for every error emitted as HTTP', () => {
    for (const code of codes) {
      const entry = ERROR_CATALOGUE[code];
      if (entry.emitAs === 'http') expect(entry.status, code).toBeGreaterThanOrEqual(400);
    }
  });

  it('gives every upstream code an upstream class', () => {
    for (const code of codes.filter((c) => c.startsWith('upstream_'))) {
      expect(ERROR_CATALOGUE[code].errorClass, code).toMatch(/^upstream_/);
    }
  });

  it('maps authentication failures to 401 proxy_authorization', () => {
    expect(catalogueEntry('unauthenticated')).toMatchObject({
      status: 401,
      errorClass: 'proxy_authorization',
    });
    expect(catalogueEntry('forbidden')).toMatchObject({ status: 403, errorClass: 'proxy_authorization' });
  });

  it('errors:identity-provider-unavailable — an authorization server outage is a transient 503, not a 401', () => {
    expect(catalogueEntry('identity_provider_unavailable')).toMatchObject({
      status: 503,
      errorClass: 'upstream_reachability',
      emitAs: 'http',
      jsonRpcCode: -31022,
    });
    const same = codes.filter((code) => ERROR_CATALOGUE[code].jsonRpcCode === -31022);
    expect(same).toEqual(['identity_provider_unavailable']);
  });
});

describe('GatewayError', () => {
  it('takes status and message from the catalogue unless a message is given', () => {
    const error = new GatewayError('not_found');
    expect(error.message).toBe(ERROR_CATALOGUE.not_found.message);
    expect(error.entry.status).toBe(404);
    expect(new GatewayError('not_found', 'no tool x').message).toBe('no tool x');
  });

  it('keeps details, headers and cause', () => {
    const cause = new Error('root');
    const error = new GatewayError('unauthenticated', undefined, {
      headers: { 'WWW-Authenticate': 'Bearer' },
      details: [{ path: 'a', problem: 'b' }],
      cause,
    });
    expect(error.headers).toEqual({ 'WWW-Authenticate': 'Bearer' });
    expect(error.details).toEqual([{ path: 'a', problem: 'b' }]);
    expect(error.cause).toBe(cause);
  });

  it('is recognised by isGatewayError and nothing else is', () => {
    expect(isGatewayError(new GatewayError('internal_error'))).toBe(true);
    expect(isGatewayError(new Error('x'))).toBe(false);
    expect(isGatewayError({ code: 'internal_error' })).toBe(false);
  });
});
