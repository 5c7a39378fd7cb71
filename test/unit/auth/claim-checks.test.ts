// claim-checks.ts (issue 37): the sanity checks every verified token and introspection answer
// passes before it becomes a principal.
import { describe, expect, it } from 'vitest';
import { claimProblem, MAX_TIME_CLAIM_DISTANCE_S } from '../../../gateway/auth/claim-checks.js';

const now = new Date('2026-11-27T12:00:00Z');
const s = now.getTime() / 1000;
const base = { sub: 'alice', iat: s, exp: s + 300 };

describe('claimProblem', () => {
  it('oauth:claim-checks — time claims must be finite NumericDates within a year of now', () => {
    expect(claimProblem(base, now, 30)).toBeUndefined();
    for (const bad of [
      Infinity,
      -Infinity,
      NaN,
      '1900000000',
      null,
      true,
      1e20,
      s + MAX_TIME_CLAIM_DISTANCE_S + 1,
    ])
      for (const name of ['exp', 'iat', 'nbf'])
        expect(claimProblem({ ...base, [name]: bad }, now, 30), `${name}=${String(bad)}`).toBe(
          'bad-time-claim',
        );
    expect(claimProblem({ ...base, exp: s + MAX_TIME_CLAIM_DISTANCE_S }, now, 30)).toBeUndefined();
    // Absent time claims are the verifier's business (RFC 7662 makes them optional).
    expect(claimProblem({ sub: 'alice' }, now, 30)).toBeUndefined();
  });

  it('oauth:claim-checks — iat may be ahead of now by the skew, not more', () => {
    expect(claimProblem({ ...base, iat: s + 30 }, now, 30)).toBeUndefined();
    expect(claimProblem({ ...base, iat: s + 31 }, now, 30)).toBe('issued-in-future');
    expect(claimProblem({ ...base, iat: s + 1 }, now, 0)).toBe('issued-in-future');
  });

  it('oauth:claim-checks — the subject is a non-empty sub, else a non-empty client_id', () => {
    expect(claimProblem({ ...base, sub: '' }, now, 30)).toBe('missing-claims');
    expect(claimProblem({ ...base, sub: 7, client_id: 'robot' }, now, 30)).toBe('missing-claims');
    expect(claimProblem({ ...base, sub: null, client_id: 'robot' }, now, 30)).toBe('missing-claims');
    expect(claimProblem({ iat: s, client_id: '' }, now, 30)).toBe('missing-claims');
    expect(claimProblem({ iat: s }, now, 30)).toBe('missing-claims');
    expect(claimProblem({ iat: s, client_id: 'robot' }, now, 30)).toBeUndefined();
  });
});
