// The hook answer checks of the wire format (gateway/governance/hook-wire.ts) for the item methods:
// a rewrite of a read's params or a prompt's arguments must have their shape, or the hook failed.
import { describe, expect, it } from 'vitest';
import { parseAnswer } from '../../../gateway/governance/hook-wire.js';

const rewrite = (field: string, value: unknown) => JSON.stringify({ decision: 'rewrite', [field]: value });

describe('hook answers for resources/read and prompts/get', () => {
  it('guardrails:item-rewrite-shapes — rewritten read params hold one string uri, prompt arguments strings only', () => {
    expect(parseAnswer(rewrite('arguments', { uri: 'agw://a/x' }), 'request', 'resources/read')).toEqual({
      decision: 'rewrite',
      value: { uri: 'agw://a/x' },
    });
    for (const value of [{ uri: 1 }, {}, { uri: 'agw://a/x', extra: 'y' }])
      expect(parseAnswer(rewrite('arguments', value), 'request', 'resources/read')).toHaveProperty(
        'malformed',
      );
    expect(parseAnswer(rewrite('arguments', { name: 'Ada' }), 'request', 'prompts/get')).toEqual({
      decision: 'rewrite',
      value: { name: 'Ada' },
    });
    expect(parseAnswer(rewrite('arguments', { name: 1 }), 'request', 'prompts/get')).toHaveProperty(
      'malformed',
    );
    // Any object stays acceptable as tool arguments.
    expect(parseAnswer(rewrite('arguments', { n: 1 }), 'request', 'tools/call')).toHaveProperty('value');
    expect(
      parseAnswer(rewrite('result', { contents: [{ text: 'x' }] }), 'response', 'resources/read'),
    ).toHaveProperty('malformed');
    expect(
      parseAnswer(rewrite('result', { messages: [{ role: 'user' }] }), 'response', 'prompts/get'),
    ).toHaveProperty('value');
  });
});
