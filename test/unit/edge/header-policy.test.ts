// Headers a request may carry once only (issue 28.7), read from the raw header list without folding
// every name (issue 45): the same verdicts in any letter case, whatever else the request carries.
import { describe, expect, it } from 'vitest';
import { repeatedSingleHeader } from '../../../gateway/edge/header-policy.js';

describe('repeatedSingleHeader', () => {
  it('edge:single-headers — a second Host or Authorization in any case is found; one of each passes', () => {
    const base = ['Content-Type', 'application/json', 'Mcp-Method', 'tools/call'];
    expect(repeatedSingleHeader([...base, 'Host', 'a', 'Authorization', 'Bearer x'])).toBeUndefined();
    expect(repeatedSingleHeader([...base, 'authorization', 'Bearer x', 'AUTHORIZATION', 'Bearer y'])).toBe(
      'authorization',
    );
    expect(repeatedSingleHeader(['host', 'a', ...base, 'hOsT', 'b'])).toBe('host');
    // Names of the same length that are not the two are not confused with them.
    expect(
      repeatedSingleHeader(['Hostx', 'a', 'Hots', 'b', 'Authorizatiom', 'c', 'Authorizatiom', 'd']),
    ).toBeUndefined();
    expect(repeatedSingleHeader([])).toBeUndefined();
  });
});
