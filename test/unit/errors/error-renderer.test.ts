import { describe, it, expect } from 'vitest';
import { GatewayError, renderRestError } from '../../../gateway/errors/index.js';

describe('renderRestError', () => {
  it('errors:body-shape renders code, class, message and request id', () => {
    const body = renderRestError(new GatewayError('upstream_timeout'), 'req-123');
    expect(body).toEqual({
      error: {
        code: 'upstream_timeout',
        class: 'upstream_reachability',
        message: 'The upstream source did not answer in time.',
        requestId: 'req-123',
      },
    });
  });

  it('omits details when there are none', () => {
    expect(Object.keys(renderRestError(new GatewayError('forbidden'), 'r').error)).toEqual([
      'code',
      'class',
      'message',
      'requestId',
    ]);
  });

  it('includes details when present', () => {
    const error = new GatewayError('invalid_request', 'bad query', {
      details: [{ path: 'query', problem: 'too long' }],
    });
    expect(renderRestError(error, 'r').error.details).toEqual([{ path: 'query', problem: 'too long' }]);
  });

  it('never renders the cause', () => {
    const error = new GatewayError('internal_error', undefined, { cause: new Error('db password=hunter2') });
    expect(JSON.stringify(renderRestError(error, 'r'))).not.toContain('hunter2');
  });
});
