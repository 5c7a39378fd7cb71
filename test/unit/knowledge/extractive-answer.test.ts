// The extractive answerer (D8): up to three sentences, each copied verbatim (whitespace collapsed)
// from one retrieved chunk and citing that chunk; relevance by query-term coverage, diversity by MMR.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extractiveAnswer, queryTerms, splitSentences } from '../../../gateway/knowledge/index.js';

const VOCABULARY = ['rotor', 'blade', 'turbine', 'inspection', 'balanced', 'flight', 'engineer', 'torque'];
const FILLER = ['the', 'every', 'before', 'after', 'is', 'with', 'careful', 'daily', 'team', 'checks'];
const whitespace = fc.constantFrom(' ', '  ', '\n', '\t', ' \n ');

const sentence = fc
  .tuple(
    fc.array(fc.tuple(fc.constantFrom(...VOCABULARY, ...FILLER), whitespace), {
      minLength: 3,
      maxLength: 18,
    }),
    fc.constantFrom('.', '!', '?'),
  )
  .map(([words, end]) => {
    const text = words.map(([w, space], i) => (i === 0 ? w : `${space}${w}`)).join('');
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}${end}`;
  });
const chunkTexts = fc.array(
  fc.array(sentence, { minLength: 1, maxLength: 6 }).map((s) => s.join(' ')),
  { minLength: 0, maxLength: 6 },
);
const terms = fc.uniqueArray(fc.constantFrom(...VOCABULARY), { minLength: 1, maxLength: 5 });

function candidates(texts: readonly string[]) {
  return texts.map((text, rank) => ({ chunkId: `d_${'x'.repeat(22)}#c${rank}`, text, rank }));
}

function normalise(text: string): string {
  return text.replace(/\s+/g, ' ');
}

function covers(sentence: string, term: string): boolean {
  const stem = term.length > 5 ? term.slice(0, -2) : term;
  return (sentence.toLowerCase().match(/[\p{L}\p{N}_]+/gu) ?? []).some((w) => w.startsWith(stem));
}

describe('splitSentences', () => {
  it('splits on sentence ends and collapses whitespace', () => {
    expect(
      splitSentences(
        'The rotor blade is balanced\nbefore every flight.  Engineers   check the rotor torque daily!',
      ),
    ).toEqual([
      'The rotor blade is balanced before every flight.',
      'Engineers check the rotor torque daily!',
    ]);
  });

  it('does not end a sentence at an abbreviation that introduces more of it (e.g., i.e., vs., cf.)', () => {
    expect(
      splitSentences(
        'A failing source says why, e.g. `connection refused` or `HTTP 503` when it answers. Prices vs. costs are compared in this sentence, i.e. both of them. See the runbook, cf. the alert rules for the breaker. A keyed sentence ends at the word egg. Then another sentence follows with enough words.',
      ),
    ).toEqual([
      'A failing source says why, e.g. `connection refused` or `HTTP 503` when it answers.',
      'Prices vs. costs are compared in this sentence, i.e. both of them.',
      'See the runbook, cf. the alert rules for the breaker.',
      'A keyed sentence ends at the word egg.',
      'Then another sentence follows with enough words.',
    ]);
  });

  it('keeps a final sentence without a full stop', () => {
    expect(
      splitSentences('First sentence has enough words to count. And the tail has enough words too'),
    ).toEqual(['First sentence has enough words to count.', 'And the tail has enough words too']);
  });

  it('drops fragments: short ones, overlong ones, and ones starting with punctuation', () => {
    expect(splitSentences('Too short. | cell | cell | cell | cell | cell | cell.')).toEqual([]);
    expect(splitSentences(`${'word '.repeat(130)}end.`)).toEqual([]);
    expect(splitSentences('Six words make one sentence here.')).toEqual([
      'Six words make one sentence here.',
    ]);
  });

  // BUG (gateway/knowledge/extractive-answer.ts:36): a full stop inside a number ends no sentence
  // in the regex, so the match restarts after it and "2.5 gigabytes" becomes "5 gigabytes": the
  // answer then quotes a fragment that states the wrong figure (and still looks verbatim).
  it('quotes an overlong sentence clause by clause, split after its semicolons', () => {
    const clause = (n: number) => `clause ${n} of the shutdown${' runs on and on'.repeat(14)}`;
    const long = `Shutdown: ${clause(1)}; ${clause(2)}; then ${clause(3)}.`;
    expect(long.length).toBeGreaterThan(600);
    expect(splitSentences(long)).toEqual([`Shutdown: ${clause(1)};`, `${clause(2)};`, `then ${clause(3)}.`]);
    // A sentence short enough to quote whole keeps its semicolons.
    expect(splitSentences(`Shutdown: ${clause(1)}; then ${clause(2)}.`)).toHaveLength(1);
  });

  it('keeps a Markdown heading and paragraphs apart from the sentences after them', () => {
    const text =
      '# Albatross relay\n\nThe albatross relay retries each delivery four times.\n## Limits\nA relay holds at most ten thousand messages at once.\n\nShort line here';
    expect(splitSentences(text)).toEqual([
      'The albatross relay retries each delivery four times.',
      'A relay holds at most ten thousand messages at once.',
    ]);
  });

  it('takes no sentence from a fenced code block', () => {
    const text =
      'Run the search command to find pages quickly.\n\n```sh\ncurl -s http://localhost/agent/search -d \'{"query":"x"}\' and more words here\n\nsecond command line of the code block stays out too.\n```\n\nThe query command answers with cited sentences.';
    expect(splitSentences(text)).toEqual([
      'Run the search command to find pages quickly.',
      'The query command answers with cited sentences.',
    ]);
  });

  it('keeps a decimal number inside its sentence', () => {
    const text = 'The maximum upload size is 2.5 gigabytes for each file in every workspace.';
    expect(splitSentences(text)).toEqual([text]);
  });
});

describe('extractiveAnswer', () => {
  it('copies every sentence verbatim from the chunk it cites', () => {
    let answered = 0;
    fc.assert(
      fc.property(chunkTexts, terms, (texts, ts) => {
        const chunks = candidates(texts);
        const answer = extractiveAnswer(ts, chunks);
        if (answer.length > 0) answered += 1;
        expect(answer.length).toBeLessThanOrEqual(3);
        for (const sentence of answer) {
          const cited = chunks.find((c) => c.chunkId === sentence.chunkId);
          expect(cited).toBeDefined();
          expect(normalise(cited!.text)).toContain(sentence.text);
          expect(splitSentences(cited!.text)).toContain(sentence.text);
          // Relative selection: each chosen sentence covers at least half as many terms as the
          // best sentence of the retrieved chunks (and at least one), unless none covers any.
          const best = Math.max(
            0,
            ...chunks.flatMap((c) =>
              splitSentences(c.text).map((t) => ts.filter((term) => covers(t, term)).length),
            ),
          );
          const covered = ts.filter((t) => covers(sentence.text, t)).length;
          if (best > 0) expect(covered).toBeGreaterThanOrEqual(Math.max(1, Math.ceil(best / 2)));
        }
        const keys = answer.map((s) => `${s.chunkId}\u0000${s.text}`);
        expect(new Set(keys).size).toBe(keys.length);
      }),
      { numRuns: 300 },
    );
    expect(answered).toBeGreaterThan(50);
  });

  it('knowledge:answer-never-empty-with-sources — with no sentence matching a term, the lead sentence of the best chunk answers', () => {
    fc.assert(
      fc.property(chunkTexts, (texts) => {
        const chunks = candidates(texts);
        const answer = extractiveAnswer(['zeppelin', 'quasar'], chunks);
        const lead = chunks.flatMap((c) =>
          splitSentences(c.text).map((text) => ({ text, chunkId: c.chunkId })),
        )[0];
        expect(answer).toEqual(lead === undefined ? [] : [lead]);
      }),
      { numRuns: 100 },
    );
  });

  it('knowledge:answer-long-questions — a long natural question still gets the sentences that cover most of it', () => {
    const chunks = candidates([
      'The gateway revokes an API key when the revoke command marks it in the config file. Revocation takes effect without a restart.',
      'Keys carry a workspace, an access level and an optional expiry date for rotation.',
    ]);
    const question =
      'Hi there, could you please tell me in plain words how exactly I would go about making sure that a leaked API key gets revoked quickly?';
    const answer = extractiveAnswer(queryTerms(question), chunks);
    expect(answer.length).toBeGreaterThan(0);
    expect(answer[0]?.text).toBe(
      'The gateway revokes an API key when the revoke command marks it in the config file.',
    );
  });

  it('answers with nothing when there are no terms or no chunks', () => {
    const chunks = candidates(['The rotor blade is balanced before every single flight.']);
    expect(extractiveAnswer([], chunks)).toEqual([]);
    expect(extractiveAnswer(['rotor'], [])).toEqual([]);
  });

  it('picks at most three sentences, the best covering first', () => {
    const chunks = candidates([
      'The rotor blade is balanced before every single flight. The hangar opens at nine every morning.',
      'A rotor check happens at every scheduled maintenance visit. Turbine blade torque is measured twice.',
      'The rotor turbine blade torque is inspected by a certified engineer. Another rotor note for pilots here.',
    ]);
    const answer = extractiveAnswer(['rotor', 'turbine', 'blade', 'torque'], chunks);
    expect(answer).toHaveLength(3);
    expect(answer[0]).toEqual({
      text: 'The rotor turbine blade torque is inspected by a certified engineer.',
      chunkId: chunks[2]!.chunkId,
    });
    expect(answer.map((s) => s.text)).not.toContain('The hangar opens at nine every morning.');
  });

  it('prefers a distinct sentence to a repeat of one already chosen', () => {
    const repeated = 'The rotor blade torque is checked before every flight.';
    const chunks = candidates([
      `${repeated} Pilots sign the rotor blade torque log afterwards today.`,
      `${repeated} Engineers record rotor blade torque values in the ledger.`,
      'Mechanics adjust rotor blade torque with a calibrated wrench set.',
    ]);
    const answer = extractiveAnswer(['rotor', 'blade', 'torque'], chunks);
    expect(answer).toHaveLength(3);
    expect(answer.filter((s) => s.text === repeated)).toHaveLength(1);
  });

  it('takes its next sentence from another chunk rather than the one already quoted, all else equal', () => {
    // Both chunks rank alike and both candidates cover the same terms and share as many words with
    // the first sentence: only where they come from tells them apart.
    const quoted = { chunkId: `d_${'x'.repeat(22)}#c0`, rank: 0 };
    const other = { chunkId: `d_${'y'.repeat(22)}#c0`, rank: 0 };
    const chunks = [
      {
        ...quoted,
        text: 'Rotor blade torque is set by the engineer. Rotor blade wear shows in winter months.',
      },
      { ...other, text: 'Rotor blade cracks show in summer months.' },
    ];
    const answer = extractiveAnswer(['rotor', 'blade', 'torque'], chunks);
    expect(answer.map((s) => s.text)).toEqual([
      'Rotor blade torque is set by the engineer.',
      'Rotor blade cracks show in summer months.',
      'Rotor blade wear shows in winter months.',
    ]);
  });

  // BUG (gateway/knowledge/extractive-answer.ts:63-76): MMR only penalises redundancy, it never
  // rejects it, so when fewer than three distinct sentences match, an exact repeat is chosen too.
  // Overlapping chunks (the chunker repeats ~150 characters) make this common: the answer then reads
  // "X [1] X [2]".
  it('never chooses the same sentence twice, even from two chunks', () => {
    const repeated = 'The rotor blade torque is checked before every flight.';
    const chunks = candidates([
      `${repeated} Nothing else here matters.`,
      `Unrelated words first. ${repeated}`,
    ]);
    const answer = extractiveAnswer(['rotor', 'blade', 'torque'], chunks);
    expect(answer.map((s) => s.text)).toEqual([repeated]);
  });
});
