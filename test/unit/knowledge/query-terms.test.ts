// Query terms (knowledge doc §1.2): lower-cased word tokens in first-seen order, duplicates and
// stop words dropped, at most 32; a query of only stop words still searches for them.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { queryTerms } from '../../../gateway/knowledge/index.js';

describe('queryTerms', () => {
  it('lower-cases and splits on anything that is not a letter, digit or underscore', () => {
    expect(queryTerms('Revoke API-Keys, quickly!')).toEqual(['revoke', 'api', 'keys', 'quickly']);
    expect(queryTerms('snake_case v2.5')).toEqual(['snake_case', 'v2', '5']);
  });

  it('drops duplicates, keeping first-seen order', () => {
    expect(queryTerms('Rotor rotor ROTOR blade rotor')).toEqual(['rotor', 'blade']);
  });

  it('drops stop words', () => {
    expect(queryTerms('How do I revoke the key of a workspace?')).toEqual(['revoke', 'key', 'workspace']);
  });

  it('drops the conversational wrapping of a question (issue 8.14)', () => {
    expect(queryTerms('Can you please tell me what did the gateway do about expired keys?')).toEqual([
      'gateway',
      'expired',
      'keys',
    ]);
  });

  it('keeps letters of any script', () => {
    expect(queryTerms('Café München Ωmega 東京 Москва')).toEqual([
      'café',
      'münchen',
      'ωmega',
      '東京',
      'москва',
    ]);
  });

  it('searches for the stop words themselves when the query has nothing else', () => {
    expect(queryTerms('To be or not to be')).toEqual(['to', 'be', 'or', 'not']);
    expect(queryTerms('the THE and')).toEqual(['the', 'and']);
  });

  it('returns no terms for punctuation and whitespace only', () => {
    expect(queryTerms('')).toEqual([]);
    expect(queryTerms('  ?!… --- "" \n\t ...')).toEqual([]);
  });

  it('keeps at most 32 terms, the first ones', () => {
    const words = Array.from({ length: 50 }, (_, i) => `term${i}`);
    expect(queryTerms(words.join(' '))).toEqual(words.slice(0, 32));
    const stops =
      'a an and are as at be but by for from has have how i if in into is it its of on or such that the their then there these this to was were what when where which who why will with'.split(
        ' ',
      );
    expect(stops.length).toBeGreaterThan(32);
    expect(queryTerms(stops.join(' '))).toEqual(stops.slice(0, 32));
  });

  it('always yields unique, lower-case word tokens that occur in the query', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 300 }), (query) => {
        const terms = queryTerms(query);
        expect(terms.length).toBeLessThanOrEqual(32);
        expect(new Set(terms).size).toBe(terms.length);
        const lower = query.toLowerCase();
        for (const term of terms) {
          expect(term).toMatch(/^[\p{L}\p{N}_]+$/u);
          expect(lower).toContain(term);
        }
        // Some term comes out exactly when the query holds a word character.
        expect(terms.length > 0).toBe(/[\p{L}\p{N}_]/u.test(lower));
      }),
      { numRuns: 300 },
    );
  });
});
