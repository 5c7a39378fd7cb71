// Stable ids (spec §2.2): document ids derive from (workspace, source, external id) without
// ambiguity, chunk ids round-trip, and content hashes notice every change of every part.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkId, contentHash, documentId, parseChunkId } from '../../../gateway/knowledge/index.js';

const DOC_ID = /^d_[A-Za-z0-9_-]{22}$/;
/** Config names are DNS labels and external ids are paths or keys: none holds a NUL. */
const part = fc.string({ maxLength: 20, unit: 'grapheme' }).filter((s) => !s.includes('\u0000'));

describe('documentId', () => {
  it('is deterministic and shaped d_ + 22 base64url characters', () => {
    fc.assert(
      fc.property(part, part, part, (w, s, e) => {
        const id = documentId(w, s, e);
        expect(id).toMatch(DOC_ID);
        expect(documentId(w, s, e)).toBe(id);
      }),
    );
  });

  it('differs when the workspace, the source or the external id differs', () => {
    const base = documentId('acme', 'docs', 'guide/intro.md');
    expect(documentId('acme2', 'docs', 'guide/intro.md')).not.toBe(base);
    expect(documentId('acme', 'wiki', 'guide/intro.md')).not.toBe(base);
    expect(documentId('acme', 'docs', 'guide/intro2.md')).not.toBe(base);
  });

  it('does not confuse text moved across the field boundaries', () => {
    expect(documentId('a', 'bc', 'x')).not.toBe(documentId('ab', 'c', 'x'));
    expect(documentId('w', 'a', 'bc')).not.toBe(documentId('w', 'ab', 'c'));
    expect(documentId('', 'ab', 'c')).not.toBe(documentId('a', 'b', 'c'));
    expect(documentId('w', 's', '')).not.toBe(documentId('w', '', 's'));
  });

  it('gives a different id whenever the field boundaries move', () => {
    fc.assert(
      fc.property(part, part, part, fc.nat(), fc.nat(), (w, s, e, i, j) => {
        const joined = w + s + e;
        const [first, second] = [i % (joined.length + 1), j % (joined.length + 1)].sort((x, y) => x - y) as [
          number,
          number,
        ];
        const moved = [joined.slice(0, first), joined.slice(first, second), joined.slice(second)] as const;
        fc.pre(moved[0] !== w || moved[1] !== s);
        expect(documentId(...moved)).not.toBe(documentId(w, s, e));
      }),
      { numRuns: 300 },
    );
  });
});

describe('chunkId and parseChunkId', () => {
  it('round-trips every document id and chunk number', () => {
    fc.assert(
      fc.property(part, part, part, fc.integer({ min: 0, max: 999_999 }), (w, s, e, n) => {
        const docId = documentId(w, s, e);
        const id = chunkId(docId, n);
        expect(id).toBe(`${docId}#c${n}`);
        expect(parseChunkId(id)).toEqual({ docId, chunkNo: n });
      }),
    );
  });

  it('rejects values that are not chunk ids', () => {
    const docId = documentId('acme', 'docs', 'a.md');
    for (const value of [
      '',
      'garbage',
      docId,
      `${docId}#c`,
      `${docId}#c-1`,
      `${docId}#c1.5`,
      `${docId}#cx`,
      `${docId}#c1234567`,
      `${docId}#c1 `,
      ` ${docId}#c1`,
      `${docId}#C1`,
      `${docId.slice(0, -1)}#c1`,
      `${docId}a#c1`,
      `x_${docId.slice(2)}#c1`,
      `${docId}#c1#c2`,
      `d_${'!'.repeat(22)}#c1`,
    ])
      expect(parseChunkId(value), JSON.stringify(value)).toBeUndefined();
  });
});

describe('contentHash', () => {
  it('is deterministic', () => {
    expect(contentHash('Title', 'Body', 'u')).toBe(contentHash('Title', 'Body', 'u'));
    expect(contentHash('Title', 'Body')).toMatch(/^[0-9a-f]{64}$/);
  });

  it('changes when any one part changes', () => {
    fc.assert(
      fc.property(
        fc.array(part, { minLength: 1, maxLength: 5 }),
        fc.nat(),
        part,
        (parts, index, replacement) => {
          const at = index % parts.length;
          fc.pre(parts[at] !== replacement);
          const changed = parts.map((p, i) => (i === at ? replacement : p));
          expect(contentHash(...changed)).not.toBe(contentHash(...parts));
        },
      ),
      { numRuns: 300 },
    );
  });

  it('is not fooled by text moved between parts or by a different number of parts', () => {
    expect(contentHash('ab', 'c')).not.toBe(contentHash('a', 'bc'));
    expect(contentHash('abc', '')).not.toBe(contentHash('', 'abc'));
    expect(contentHash('abc')).not.toBe(contentHash('abc', ''));
    expect(contentHash('a', 'b', '', '')).not.toBe(contentHash('a', 'b', ''));
    fc.assert(
      fc.property(part, part, fc.nat(), (left, right, cut) => {
        const joined = left + right;
        const at = cut % (joined.length + 1);
        fc.pre(at !== left.length);
        expect(contentHash(joined.slice(0, at), joined.slice(at))).not.toBe(contentHash(left, right));
      }),
      { numRuns: 300 },
    );
  });

  // BUG (gateway/knowledge/stable-ids.ts:21-24): parts are framed by a trailing NUL rather than by a
  // length, so moving a NUL across a part boundary gives the same hash. Title and body are free
  // text from the source (a NUL is valid UTF-8), so two different versions of an item can collide and
  // the sync engine would then skip re-indexing the changed one. Low severity; a length prefix fixes it.
  it('is not fooled by text moved between parts when a part holds a NUL', () => {
    expect(contentHash('title\u0000', 'body')).not.toBe(contentHash('title', '\u0000body'));
  });
});
