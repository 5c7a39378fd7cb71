// The W3C trace context of a request's `_meta` (SEP-414) is taken only when it is strictly valid and
// bounded: a bad `traceparent` drops everything, a bad `tracestate` or `baggage` drops only itself.
import { describe, expect, it } from 'vitest';
import { traceCarrierOf } from '../../../gateway/telemetry/trace-carrier.js';

const PARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

describe('trace:meta-format-strict — only valid, bounded W3C values are taken from _meta', () => {
  it('takes a valid traceparent, tracestate and baggage as they are', () => {
    const meta = {
      traceparent: PARENT,
      tracestate: 'rojo=00f067aa0ba902b7,congo=t61rcWkgMzE, tenant@vendor=x',
      baggage: 'userId=alice,serverNode=DF%2028;prop, isProduction=false',
      progressToken: 3,
    };
    expect(traceCarrierOf(meta)).toEqual({
      traceparent: meta.traceparent,
      tracestate: meta.tracestate,
      baggage: meta.baggage,
    });
  });

  it.each([
    ['upper-case hex', PARENT.toUpperCase()],
    ['an all-zero trace id', `00-${'0'.repeat(32)}-b7ad6b7169203331-01`],
    ['an all-zero span id', `00-0af7651916cd43dd8448eb211c80319c-${'0'.repeat(16)}-01`],
    ['version ff', `ff${PARENT.slice(2)}`],
    ['a later version', `01${PARENT.slice(2)}`],
    ['a trailing field', `${PARENT}-00`],
    ['a short trace id', '00-0af7651916cd43dd8448eb211c8031-b7ad6b7169203331-01'],
    ['spaces around it', ` ${PARENT} `.slice(0, 55)],
    ['a non-string', 42],
    ['an oversized value', `${PARENT}${'a'.repeat(10_000)}`],
  ])('ignores a traceparent with %s, and the other keys with it', (_label, traceparent) => {
    expect(traceCarrierOf({ traceparent, tracestate: 'a=b', baggage: 'k=v' })).toBeUndefined();
  });

  it('ignores a _meta that is no object, or has no traceparent', () => {
    for (const meta of [undefined, null, 'x', [PARENT], { tracestate: 'a=b' }])
      expect(traceCarrierOf(meta)).toBeUndefined();
  });

  it.each([
    ['over 512 characters', Array.from({ length: 25 }, (_, i) => `k${i}=${'v'.repeat(20)}`).join(',')],
    ['over 32 members', Array.from({ length: 33 }, (_, i) => `k${i}=v`).join(',')],
    ['an upper-case key', 'Rojo=1'],
    ['a member without "="', 'rojo'],
    ['a value with "="', 'rojo=a=b'],
    ['a duplicated key', 'rojo=1,rojo=2'],
    ['a control character', 'rojo=a\nb'],
    ['no members', ' , '],
  ])('drops a tracestate with %s and keeps the traceparent', (_label, tracestate) => {
    expect(traceCarrierOf({ traceparent: PARENT, tracestate })).toEqual({ traceparent: PARENT });
  });

  it.each([
    ['over 8192 characters', `k=${'v'.repeat(8191)}`],
    ['over 64 members', Array.from({ length: 65 }, (_, i) => `k${i}=v`).join(',')],
    ['a space inside a value', 'k=a b'],
    ['a quote', 'k="v"'],
    ['no key', '=v'],
    ['a newline', 'k=v\r\nx=y'],
  ])('drops baggage with %s and keeps the traceparent', (_label, baggage) => {
    expect(traceCarrierOf({ traceparent: PARENT, baggage })).toEqual({ traceparent: PARENT });
  });

  it('keeps the largest values the bounds allow', () => {
    const tracestate = Array.from({ length: 32 }, (_, i) => `k${String(i).padStart(2, '0')}=v`).join(',');
    const baggage = Array.from({ length: 64 }, (_, i) => `k${i}=v`).join(',');
    expect(traceCarrierOf({ traceparent: PARENT, tracestate, baggage })).toEqual({
      traceparent: PARENT,
      tracestate,
      baggage,
    });
  });
});
