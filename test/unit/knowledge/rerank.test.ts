import { describe, expect, it } from 'vitest';
import { proseOnly } from '../../../gateway/knowledge/code-spans.js';
import { rerank, termFeatures } from '../../../gateway/knowledge/rerank.js';
import type { SearchHit } from '../../../gateway/knowledge/index.js';

function hit(docId: string, text: string, score: number): SearchHit {
  return {
    docId,
    chunkNo: 0,
    text,
    score,
    title: '',
    url: undefined,
    sourceId: 's',
    sourceType: 'files',
    updatedAt: undefined,
  };
}

describe('rerank', () => {
  it('measures term coverage and the shortest window holding the present terms', () => {
    expect(termFeatures('set an alarm clock for delivery of a signal', ['alarm', 'clock', 'signal'])).toEqual(
      { coverage: 1, window: 7 },
    );
    expect(termFeatures('alarm here, nothing else', ['alarm', 'clock'])).toEqual({
      coverage: 0.5,
      window: 1,
    });
    expect(termFeatures('nothing', ['alarm']).coverage).toBe(0);
  });
  it('lifts a chunk covering all terms close together above one with a higher BM25 score for one term', () => {
    const ranked = rerank(
      [hit('a', 'signal signal signal signal', 1.2), hit('b', 'the alarm clock signal', 1.0)],
      ['alarm', 'clock', 'signal'],
    );
    expect(ranked.map((h) => h.docId)).toEqual(['b', 'a']);
  });
  it('keeps the BM25 order when the features are equal', () => {
    const ranked = rerank([hit('a', 'alarm', 2), hit('b', 'alarm', 1)], ['alarm']);
    expect(ranked.map((h) => h.docId)).toEqual(['a', 'b']);
  });
});

describe('code in chunks (issue 8.15)', () => {
  it('knowledge:code-ranks-below-prose — a command that contains the question ranks below prose about it at equal BM25 score', () => {
    const code = hit(
      'code',
      'Quick start.\n\n```sh\ncurl -d \'{"query":"how do I revoke an API key"}\' http://x/agent/search\n```\n',
      5,
    );
    const prose = hit('prose', 'To revoke an API key run the revoke command with its id.', 5);
    const ranked = rerank([code, prose], ['revoke', 'api', 'key']);
    expect(ranked.map((h) => h.docId)).toEqual(['prose', 'code']);
  });

  it('proseOnly drops fenced and indented code, keeps prose and inline code', () => {
    const text =
      'Run `key list` first.\n\n```sh\nnpx agent-gateway key list\n```\n\n    indented code line\n\nBack to prose.';
    const prose = proseOnly(text);
    expect(prose).toContain('Run `key list` first.');
    expect(prose).toContain('Back to prose.');
    expect(prose).not.toContain('npx');
    expect(prose).not.toContain('indented');
  });
});
