// Pins the re-rank's features to the word-split definition they had before the split was replaced
// by an indexOf scan (issue 39 goal 5): the same coverage and window for any text and terms, so the
// speed-up cannot move a result. The reference below is the earlier implementation, verbatim, except
// that it takes each term's prefix from termPrefix (the inflection rule the answers work of issue 39
// added), which is what is matched, not how.
import { describe, expect, it } from 'vitest';
import { rerank, termFeatures } from '../../../gateway/knowledge/rerank.js';
import type { SearchHit } from '../../../gateway/knowledge/index.js';
import { termPrefix } from '../../../gateway/knowledge/query-terms.js';

function referenceFeatures(text: string, terms: readonly string[]): { coverage: number; window: number } {
  const words = text.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? [];
  const prefixes = terms.map(termPrefix);
  const events: [number, number][] = [];
  words.forEach((word, position) => {
    prefixes.forEach((prefix, index) => {
      if (word.startsWith(prefix)) events.push([position, index]);
    });
  });
  const present = new Set(events.map(([, index]) => index)).size;
  let window = Number.POSITIVE_INFINITY;
  const counts = new Map<number, number>();
  let have = 0;
  let left = 0;
  for (const [position, index] of events) {
    counts.set(index, (counts.get(index) ?? 0) + 1);
    if (counts.get(index) === 1) have += 1;
    while (have === present && present > 0) {
      const [leftPosition, leftIndex] = events[left] as [number, number];
      window = Math.min(window, position - leftPosition + 1);
      counts.set(leftIndex, (counts.get(leftIndex) ?? 1) - 1);
      if (counts.get(leftIndex) === 0) have -= 1;
      left += 1;
    }
  }
  return { coverage: terms.length === 0 ? 0 : present / terms.length, window };
}

/** Deterministic pseudo-random numbers (the same cases on every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => (state = (state * 1664525 + 1013904223) % 4294967296) / 4294967296;
}

// Pieces that stress the word boundaries: case, digits, underscores, accents precomposed and
// combining (a mark is not a word character), astral letters and symbols, lone surrogates, a
// dotless i whose lower case grows, punctuation and line breaks.
const PIECES = [
  'alarm',
  'Alarm',
  'ALARMS',
  'alarming',
  'clock',
  'clockwork',
  'signal',
  'signals',
  'signalling',
  'kalo',
  'kalomi',
  'kalomiter',
  'mi',
  'x_1',
  '_alarm',
  'alarm_clock',
  '42',
  '42nd',
  'café',
  'cafe\u0301',
  'naïve',
  'İstanbul',
  'straße',
  '𝐀lpha',
  '𝐀',
  '😀',
  'a😀larm',
  '\ud83d',
  '\ude00',
  'signal\ud83d',
  '日本語',
  'データ',
  'node.js',
  'c++',
  'e-mail',
  ' ',
  ' ',
  ' ',
  '  ',
  '\n',
  ', ',
  '. ',
  '-',
  '—',
  '\t',
];
const TERMS = [
  'alarm',
  'clock',
  'signal',
  'signals',
  'signalling',
  'kalomiter',
  'kalo',
  'mi',
  'x_1',
  '42',
  'café',
  'cafe',
  'naïve',
  'istanbul',
  'straße',
  '𝐀lpha',
  'a😀larm',
  '日本語',
  'データ',
  'node.js',
  'c++',
  'e',
  '',
  'alarm_clock',
  'abc😀d',
  'i̇stanbul',
];

function pick<T>(next: () => number, from: readonly T[]): T {
  return from[Math.floor(next() * from.length)] as T;
}

describe('termFeatures (issue 39: pinned to the word split)', () => {
  it('gives the word split’s coverage and window on 5,000 generated texts and term sets', () => {
    const next = random(39);
    for (let n = 0; n < 5_000; n += 1) {
      const text = Array.from({ length: 1 + Math.floor(next() * 60) }, () => pick(next, PIECES)).join('');
      const terms = Array.from({ length: Math.floor(next() * 5) }, () => pick(next, TERMS));
      expect(termFeatures(text, terms), JSON.stringify({ text, terms })).toEqual(
        referenceFeatures(text, terms),
      );
    }
  });

  it('keeps the known cases', () => {
    expect(termFeatures('the Signalling of signals, alarm-clock', ['signalling', 'alarm', 'clock'])).toEqual({
      coverage: 1,
      window: 5,
    });
    expect(termFeatures('x alarmclock', ['alarm', 'clock'])).toEqual({ coverage: 0.5, window: 1 });
    expect(termFeatures('', ['alarm'])).toEqual({ coverage: 0, window: Number.POSITIVE_INFINITY });
  });
});

describe('rerank order (issue 39: pinned before the speed-up)', () => {
  it('orders a generated pool exactly as before', () => {
    const next = random(7);
    const words = ['alarm', 'clock', 'signal', 'timer', 'delivery', 'process', 'handler', 'kernel'];
    const hits: SearchHit[] = Array.from({ length: 40 }, (_, i) => ({
      docId: `d${i}`,
      chunkNo: 0,
      text:
        Array.from({ length: 30 }, () => pick(next, words)).join(' ') +
        (i % 5 === 0 ? '\n\n```sh\nalarm clock signal\n```\n' : ''),
      score: Math.round(next() * 1000) / 100,
      title: i % 3 === 0 ? 'Alarm clock' : '',
      url: undefined,
      sourceId: 's',
      sourceType: 'files',
      updatedAt: undefined,
    }));
    const ranked = rerank(hits, ['alarm', 'clock', 'signal']);
    expect(ranked.map((hit) => `${hit.docId}:${hit.score.toFixed(6)}`).join(' ')).toBe(PINNED);
  });
});

/** Computed with the word-split implementation (commit 400823b). */
const PINNED =
  'd3:19.207500 d36:18.583500 d35:17.885749 d37:17.842500 d16:17.569500 d14:17.491500 d2:16.984500 d9:16.594500 d5:16.550944 d30:15.035484 d1:14.820000 d4:14.586000 d25:13.090279 d7:12.558000 d12:11.193000 d24:10.549500 d19:9.379500 d0:8.270423 d18:7.488000 d28:6.805500 d27:6.649500 d39:6.123000 d21:5.694000 d26:5.655000 d23:5.518500 d31:5.187000 d13:5.089500 d11:5.050500 d22:4.506667 d29:3.666000 d32:3.100500 d38:2.964000 d33:2.691000 d15:2.617268 d10:2.320671 d6:2.106000 d34:1.989000 d17:1.833000 d20:1.810299 d8:0.643500';
