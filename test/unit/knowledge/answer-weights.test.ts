// Issue 39 goal 3: what makes one answer sentence better than another beyond counting the question's
// words — section labels, quotation marks, rare terms — and the query normalisation that feeds it.
import { describe, expect, it } from 'vitest';
import { sentencesWithContext } from '../../../gateway/knowledge/answer-sentences.js';
import { extractiveAnswer, queryTerms } from '../../../gateway/knowledge/index.js';
import { termPrefix } from '../../../gateway/knowledge/query-terms.js';

const chunk = (text: string, rank: number) => ({ chunkId: `d_${'y'.repeat(22)}#c${rank}`, text, rank });

describe('query normalisation', () => {
  it('drops "what happens" and an aspect verb before an -ing form, keeps "keep" otherwise', () => {
    expect(queryTerms('what happens when an upstream keeps failing')).toEqual(['upstream', 'failing']);
    expect(queryTerms('how long are audit records kept')).toEqual(['long', 'audit', 'records', 'kept']);
  });

  it('an inflected term matches its other forms', () => {
    expect(termPrefix('failing')).toBe('fail');
    expect(['fails', 'failure', 'failed'].every((w) => w.startsWith(termPrefix('failing')))).toBe(true);
    expect(termPrefix('documents')).toBe('document');
    expect(termPrefix('use')).toBe('use');
    expect(termPrefix('upstream')).toBe('upstre');
  });
});

describe('sentencesWithContext', () => {
  it('labels each sentence with its heading and its list item bold lead; items are blocks of their own', () => {
    const text = [
      '## Turbines',
      '',
      '- **Rotor checks**: the rotor is balanced before every flight by an engineer',
      '- **Blade wear**: blades are replaced after two thousand hours of flight.',
      '',
      'A plain paragraph under the turbine heading goes here.',
    ].join('\n');
    expect(sentencesWithContext(text)).toEqual([
      {
        text: '- **Rotor checks**: the rotor is balanced before every flight by an engineer',
        context: 'Turbines Rotor checks',
      },
      {
        text: '- **Blade wear**: blades are replaced after two thousand hours of flight.',
        context: 'Turbines Blade wear',
      },
      { text: 'A plain paragraph under the turbine heading goes here.', context: 'Turbines' },
    ]);
  });
});

describe('extractiveAnswer weighs what a sentence explains', () => {
  it('a sentence that quotes the question ranks below one that explains it', () => {
    const answer = extractiveAnswer(
      ['upstream', 'failing'],
      [
        chunk('The docs ask "what happens when an upstream keeps failing" as their own example here.', 0),
        chunk('When an upstream is failing, its breaker opens and calls are refused at once.', 1),
      ],
    );
    expect(answer[0]?.text).toBe(
      'When an upstream is failing, its breaker opens and calls are refused at once.',
    );
  });

  it('a sentence under a label naming the subject ranks above an equal one elsewhere', () => {
    const answer = extractiveAnswer(
      ['breaker', 'opens'],
      [
        chunk('- **Status page**: the breaker opens and the page turns red for the team.', 0),
        chunk('## Breaker\n\nThe breaker opens after half of five calls fail within thirty seconds.', 1),
      ],
    );
    expect(answer[0]?.text).toBe('The breaker opens after half of five calls fail within thirty seconds.');
  });

  it('a question in plain words finds its terms inside a camelCase name', () => {
    const answer = extractiveAnswer(
      ['config', 'reload'],
      [
        chunk(
          'The blade log is written daily by the engineer. A reload of the page shows the latest entries.',
          0,
        ),
        chunk('## TurbineConfigReloadFailed\n\nA reload that fails keeps the last good file in service.', 1),
      ],
    );
    expect(answer[0]?.text).toBe('A reload that fails keeps the last good file in service.');
  });

  it('a rare term of the question outweighs a common one', () => {
    const answer = extractiveAnswer(
      ['gateway', 'sigterm'],
      [
        chunk(
          'The gateway runs as one process here. The gateway serves the console too. The gateway logs JSON lines always. On SIGTERM the server drains its connections first.',
          0,
        ),
      ],
    );
    expect(answer[0]?.text).toBe('On SIGTERM the server drains its connections first.');
  });
});
