// The id check reads a plain body's id text without a second parse (issue 45); these compare what it
// answers with the id's source text as JSON.parse's reviver reports it, over bodies built to fool a
// text scan: nested and repeated ids, escaped keys, ids inside strings, numbers written oddly.
import { describe, expect, it } from 'vitest';
import { idEchoesExactly } from '../../../gateway/platform/exact-rpc-id.js';

/** The truth, read the slow way: the top-level id's source text prints as the number parsed. */
function truth(text: string): boolean {
  const sources = new Map<object, string | undefined>();
  const body = JSON.parse(text, function (
    this: object,
    key: string,
    value: unknown,
    context?: { source?: string },
  ) {
    if (key === 'id' && typeof value === 'number') sources.set(this, context?.source);
    return value;
  } as (this: unknown, key: string, value: unknown) => unknown) as { id?: unknown };
  if (typeof body.id !== 'number') return true;
  const source = sources.get(body);
  return source !== undefined && JSON.stringify(body.id) === source;
}

const BODIES = [
  '{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"a"}}',
  '{"jsonrpc":"2.0","id":7.0,"method":"x"}',
  '{"jsonrpc":"2.0","id":1e2,"method":"x"}',
  '{"jsonrpc":"2.0","id":-12,"method":"x"}',
  '{"jsonrpc":"2.0", "id" :  42 ,"method":"x"}',
  '{"jsonrpc":"2.0","id":\n5\n,"method":"x"}',
  // A nested id that prints as the top-level one, which is written otherwise.
  '{"jsonrpc":"2.0","params":{"id":5},"id":5.0,"method":"x"}',
  '{"jsonrpc":"2.0","id":5.0,"params":{"id":5},"method":"x"}',
  // The top-level key escaped, a plain nested one beside it.
  '{"jsonrpc":"2.0","\\u0069d":5.0,"params":{"id":5},"method":"x"}',
  '{"jsonrpc":"2.0","\\u0069d":5,"method":"x"}',
  // "id" as a string value, and inside a string.
  '{"jsonrpc":"2.0","method":"id","params":{"k":"id"},"id":9}',
  '{"jsonrpc":"2.0","method":"x","params":{"k":"say \\"id\\": 1.0"},"id":9}',
  '{"jsonrpc":"2.0","method":"x","params":{"k":"\\"id\\":9"},"id":9.00}',
  // Repeated top-level id: the last wins in JSON.parse.
  '{"jsonrpc":"2.0","id":1,"id":1.0,"method":"x"}',
  '{"jsonrpc":"2.0","id":1.0,"id":1,"method":"x"}',
  '{"jsonrpc":"2.0","id":9007199254740991,"method":"x"}',
  '{"jsonrpc":"2.0","id":9007199254740993,"method":"x"}',
  '{"jsonrpc":"2.0","id":"7","method":"x"}',
  '{"jsonrpc":"2.0","id":10E0,"method":"x"}',
];

describe('idEchoesExactly', () => {
  it.each(BODIES)('rpc:exact-id-plain-scan — agrees with the reviver on %s', (text) => {
    expect(idEchoesExactly(text, JSON.parse(text))).toBe(truth(text));
  });
});
