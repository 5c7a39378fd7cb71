// The adaptive fusion of document search (issue 39): a chunk's fused score depends on the two
// candidate lists only (never on how many results are cut off afterwards, nor on the tail of the
// lists), and a weak semantic list that disagrees with a confident lexical one cannot push the
// lexical top hit down, the keyword-style query that a fixed blend lost.
import { describe, expect, it } from 'vitest';
import { fuse, type SearchHit } from '../../../gateway/knowledge/index.js';
import { fusionSignals, semanticWeight } from '../../../gateway/knowledge/adaptive-fusion.js';

function hit(docId: string, score: number, text = `about ${docId}`): SearchHit {
  return {
    docId,
    chunkNo: 0,
    text,
    score,
    title: docId,
    url: undefined,
    sourceId: 's',
    sourceType: 'files',
    updatedAt: undefined,
  };
}

const semantic = (docId: string, similarity: number) => ({ hit: hit(docId, 0), similarity });

/** Forty lexical and forty semantic candidates, half of them shared, with made-up scores. */
function lists(): { lexical: SearchHit[]; sem: { hit: SearchHit; similarity: number }[] } {
  const lexical = Array.from({ length: 40 }, (_, i) => hit(`d${i}`, 30 / (1 + i * 0.37)));
  const sem = Array.from({ length: 40 }, (_, i) => semantic(`d${(i * 7) % 80}`, 0.82 - i * 0.011));
  return { lexical, sem };
}

const shape = { terms: ['about'], words: 4 };

describe('adaptive fusion', () => {
  it('knowledge:fusion-limit-independent — cutting the fused list keeps its order and scores', () => {
    const { lexical, sem } = lists();
    const full = fuse(lexical, sem, { kind: 'adaptive' }, shape);
    for (const shown of [1, 5, 10, 30]) {
      // What a search shows at `limit` = shown is the first `shown` of the one fused list.
      expect(full.slice(0, shown).map((f) => f.hit.docId)).toEqual(
        fuse(lexical, sem, { kind: 'adaptive' }, shape)
          .slice(0, shown)
          .map((f) => f.hit.docId),
      );
    }
    // A chunk's score does not hang on the lists' tails either (the min-max blend's did: its
    // normalisation used the pool's lowest score): dropping the last ten of each list leaves the
    // score of every chunk both shorter lists still hold where it was.
    const shorter = fuse(lexical.slice(0, 30), sem.slice(0, 30), { kind: 'adaptive' }, shape);
    const both = shorter.filter((f) => f.foundBy === 'lexical+semantic');
    expect(both.length).toBeGreaterThan(5);
    const byDoc = new Map(full.map((f) => [f.hit.docId, f.score]));
    for (const f of both) expect(f.score).toBeCloseTo(byDoc.get(f.hit.docId) as number, 12);
    const minMax = (l: SearchHit[], s: typeof sem) =>
      new Map(fuse(l, s, { kind: 'convex', lexicalWeight: 0.6 }).map((f) => [f.hit.docId, f.score]));
    // The check above can fail: the old blend's scores move when the tail is cut.
    expect(minMax(lexical.slice(0, 30), sem.slice(0, 30)).get('d7')).not.toBeCloseTo(
      minMax(lexical, sem).get('d7') as number,
      6,
    );
  });

  it('knowledge:fusion-keyword-guard — a weak, disagreeing semantic list cannot move a strong lexical top hit', () => {
    const terms = ['epoll', 'descriptor', 'readiness'];
    const lexical = [
      hit('epoll', 24, 'epoll waits for readiness of any descriptor in the interest list'),
      hit('poll', 9, 'poll waits for one of a set of file descriptors'),
      hit('select', 8, 'select monitors file descriptors'),
    ];
    // The semantic list knows nothing of the query's words: unrelated pages with middling cosines,
    // the lexical top hit far down it.
    const sem = [
      semantic('printf', 0.41),
      semantic('malloc', 0.4),
      semantic('strlen', 0.39),
      semantic('qsort', 0.38),
      semantic('epoll', 0.22),
    ];
    const keywordShape = { terms, words: 3 };
    const signals = fusionSignals(lexical, keywordShape);
    expect(signals).toEqual({ terms: 3, stopShare: 0, lexicalCoverage: 1 });
    const fused = fuse(lexical, sem, { kind: 'adaptive' }, keywordShape);
    expect(fused[0]?.hit.docId).toBe('epoll');
    expect(fused.slice(0, 3).map((f) => f.hit.docId)).toEqual(['epoll', 'poll', 'select']);
    // The old fixed blend put a page the semantic list liked above the lexical runner-up.
    const old = fuse(lexical, sem, { kind: 'convex', lexicalWeight: 0.6 });
    expect(old.slice(0, 3).map((f) => f.hit.docId)).not.toEqual(['epoll', 'poll', 'select']);
  });

  it('knowledge:fusion-semantic-helps — a confident semantic list that agrees with the lexical one lifts its pick', () => {
    const lexical = [hit('a', 10), hit('b', 9.6), hit('c', 9)];
    const sem = [semantic('b', 0.78), semantic('a', 0.41), semantic('c', 0.4)];
    const question = { terms: ['how', 'to'], words: 7 };
    expect(semanticWeight(fusionSignals(lexical, question))).toBeGreaterThan(0);
    expect(fuse(lexical, sem, { kind: 'adaptive' }, question)[0]?.hit.docId).toBe('b');
  });
});
