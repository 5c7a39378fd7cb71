// The answer set of issue 39 (test/bench/answer-set): every question's answering sections can still
// be found in the docs at this commit (a renamed heading or reworded phrase fails here, not silently
// in the benchmark), the section finder's rules, and the judge's.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { loadAnswerSet, sectionSpan } from '../../bench/answer-set/answer-set.js';
import { judge, sentenceInSection } from '../../bench/answer-set/judge.js';

const ROOT = process.cwd();
const questions = loadAnswerSet(ROOT);

describe('answer set', () => {
  it('has ~40 distinct questions split into train and held-out, the README example among them', () => {
    expect(questions.length).toBeGreaterThanOrEqual(40);
    expect(new Set(questions.map((q) => q.id)).size).toBe(questions.length);
    expect(new Set(questions.map((q) => q.question)).size).toBe(questions.length);
    expect(questions.filter((q) => q.split === 'held-out').length).toBeGreaterThanOrEqual(12);
    expect(questions.map((q) => q.question)).toContain('what happens when an upstream keeps failing');
    expect(readFileSync(`${ROOT}/README.md`, 'utf8')).toContain(
      'what happens when an upstream keeps failing',
    );
  });

  it.each(questions.map((q) => [q.id, q] as const))('%s: every answering section is in the docs', (_, q) => {
    for (const anchor of q.answers) {
      const text = readFileSync(`${ROOT}/${anchor.doc}`, 'utf8');
      const span = sectionSpan(text, anchor);
      expect(span, `${anchor.doc} ${JSON.stringify(anchor)}`).toBeDefined();
      // A section is a real piece of text, not a stray word, nor the whole file by accident.
      expect(span!.end - span!.start).toBeGreaterThan(40);
      expect(span!.end - span!.start).toBeLessThan(text.length);
    }
  });
});

const DOC = [
  '# Title',
  '',
  'Intro paragraph about things.',
  '',
  '## Alpha',
  '',
  '- **First item**: says one thing',
  '  and goes on here.',
  '- **Second item**: says another.',
  '',
  '| Row | one |',
  '| Other | two |',
  '',
  '### Alpha detail',
  '',
  'Detail text.',
  '',
  '## Beta',
  '',
  'Beta text about the second thing here.',
].join('\n');

describe('sectionSpan', () => {
  const slice = (anchor: Parameters<typeof sectionSpan>[1]) => {
    const span = sectionSpan(DOC, anchor);
    return span === undefined ? undefined : DOC.slice(span.start, span.end);
  };

  it('a heading runs to the next heading of its level, over its subsections', () => {
    expect(slice({ doc: 'x', heading: 'Alpha' })).toMatch(/^## Alpha[\s\S]*Detail text\.\n\n$/);
    expect(slice({ doc: 'x', heading: 'Beta' })).toBe('## Beta\n\nBeta text about the second thing here.');
  });

  it('a phrase finds its list item with continuation lines, its table row or its paragraph', () => {
    expect(slice({ doc: 'x', phrase: 'goes on here' })).toBe(
      '- **First item**: says one thing\n  and goes on here.',
    );
    expect(slice({ doc: 'x', phrase: '**Second item**' })).toBe('- **Second item**: says another.');
    expect(slice({ doc: 'x', phrase: '| Other |' })).toBe('| Other | two |');
    expect(slice({ doc: 'x', phrase: 'Intro paragraph' })).toBe('Intro paragraph about things.');
  });

  it('finds nothing for a missing heading or phrase, or a phrase that occurs twice', () => {
    expect(slice({ doc: 'x', heading: 'Gamma' })).toBeUndefined();
    expect(slice({ doc: 'x', phrase: 'not there' })).toBeUndefined();
    expect(slice({ doc: 'x', phrase: 'thing' })).toBeUndefined();
  });
});

describe('judge', () => {
  const files = new Map([['d.md', DOC]]);
  const question = {
    id: 'q',
    question: 'what does the first item say',
    split: 'train' as const,
    answers: [{ doc: 'd.md', phrase: '**First item**' }],
  };

  it('counts a cited sentence that lies in the section, whitespace collapsed, and not one outside', () => {
    const span = sectionSpan(DOC, question.answers[0]!)!;
    expect(sentenceInSection(DOC, '- **First item**: says one thing and goes on here.', span)).toBe(true);
    expect(sentenceInSection(DOC, 'Beta text about the second thing here.', span)).toBe(false);
    const verdict = judge(
      question,
      files,
      [
        { path: 'd.md', text: 'Beta text about the second thing here.' },
        { path: 'd.md', text: '- **First item**: says one thing and goes on here.' },
      ],
      [{ path: 'd.md', charStart: 0, charEnd: DOC.length }],
      ['e.md', 'd.md', 'd.md'],
    );
    expect(verdict).toEqual({ cites: true, firstCites: false, sourceContains: true, docRank: 2 });
  });

  it('a sentence of another document with the same words does not count', () => {
    const verdict = judge(
      question,
      files,
      [{ path: 'e.md', text: '- **First item**: says one thing and goes on here.' }],
      [{ path: 'e.md', charStart: 0, charEnd: 500 }],
      ['e.md'],
    );
    expect(verdict).toEqual({ cites: false, firstCites: false, sourceContains: false, docRank: undefined });
  });

  it('refuses to judge when an answering section is gone', () => {
    expect(() =>
      judge({ ...question, answers: [{ doc: 'd.md', phrase: 'gone' }] }, files, [], [], []),
    ).toThrow(/no longer in the docs/);
  });
});
