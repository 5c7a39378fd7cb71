// The chunker (knowledge doc §7): overlapping chunks with exact character offsets into the body,
// bounded by targetChars, cut at paragraph breaks first, then sentence ends, then anywhere.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkText, DEFAULT_CHUNKING } from '../../../gateway/knowledge/index.js';

type ChunkOptions = NonNullable<Parameters<typeof chunkText>[1]>;

const WORDS = [
  'gateway',
  'workspace',
  'index',
  'chunk',
  'search',
  'token',
  'a',
  'is',
  'of',
  'rotor',
  'balanced',
  'inspection',
  'x',
  'upstream',
  'quarterly',
  'invoice',
];

const word = fc.constantFrom(...WORDS);
const sentence = fc
  .tuple(
    fc.array(word, { minLength: 1, maxLength: 25, size: 'max' }),
    fc.constantFrom('.', '!', '?', '."', '.)'),
  )
  .map(([words, end]) => {
    const text = words.join(' ');
    return `${text.charAt(0).toUpperCase()}${text.slice(1)}${end}`;
  });
const paragraph = fc.array(sentence, { minLength: 1, maxLength: 12, size: 'max' }).map((s) => s.join(' '));
/** Bodies of paragraphs joined by assorted breaks; they never end in whitespace. */
const body = fc
  .array(fc.tuple(paragraph, fc.constantFrom('\n\n', '\n', ' ', '\n \n', '\r\n\r\n')), {
    minLength: 1,
    maxLength: 30,
    size: 'max',
  })
  .map((parts) =>
    parts
      .map(([text, sep], i) => (i === 0 ? text : `${sep}${text}`))
      .join('')
      .trim(),
  );
const options = fc
  .integer({ min: 80, max: 2000 })
  .chain((targetChars) =>
    fc
      .integer({ min: 0, max: Math.floor(targetChars / 4) })
      .map((overlapChars): ChunkOptions => ({ targetChars, overlapChars })),
  );

/** Every structural promise the chunker makes about one body. */
function expectWellFormed(text: string, opts: ChunkOptions): number {
  const chunks = chunkText(text, opts);
  expect(chunks.length).toBeGreaterThan(0);
  expect(chunks[0]!.charStart).toBe(0);
  expect(chunks.at(-1)!.charEnd).toBe(text.length);
  chunks.forEach((chunk, i) => {
    expect(chunk.chunkNo).toBe(i);
    expect(chunk.text).toBe(text.slice(chunk.charStart, chunk.charEnd).trim());
    expect(chunk.text).not.toBe('');
    expect(chunk.charEnd - chunk.charStart).toBeLessThanOrEqual(opts.targetChars);
    const previous = chunks[i - 1];
    if (previous !== undefined) {
      expect(chunk.charStart).toBeGreaterThan(previous.charStart);
      // Overlapping or touching: no text between two chunks is left out.
      expect(chunk.charStart).toBeLessThanOrEqual(previous.charEnd);
      expect(chunk.charEnd).toBeGreaterThan(previous.charEnd);
    }
  });
  // Progress: each cut lands in the second half of its window and steps back at most the overlap.
  const step = Math.max(1, Math.floor(opts.targetChars / 2) - opts.overlapChars);
  expect(chunks.length).toBeLessThanOrEqual(Math.ceil(text.length / step) + 1);
  return chunks.length;
}

describe('chunkText', () => {
  it('returns no chunks for an empty or whitespace-only body', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText('   \n\n\t  \r\n')).toEqual([]);
  });

  it('returns a short body as one chunk starting at 0', () => {
    const text = 'Revocation takes effect without a restart of the gateway.';
    expect(chunkText(text)).toEqual([{ chunkNo: 0, text, charStart: 0, charEnd: text.length }]);
  });

  it('trims the chunk text but keeps offsets into the untrimmed body', () => {
    const text = '\n\n   Indented opening line.\n';
    const [chunk, ...rest] = chunkText(text);
    expect(rest).toEqual([]);
    expect(chunk).toEqual({ chunkNo: 0, text: 'Indented opening line.', charStart: 0, charEnd: text.length });
  });

  it('keeps a body of exactly targetChars in one chunk and splits one character more', () => {
    const opts = { targetChars: 100, overlapChars: 10 };
    expect(chunkText('x'.repeat(100), opts)).toHaveLength(1);
    expect(chunkText('x'.repeat(101), opts)).toHaveLength(2);
  });

  it('hard-cuts a body without whitespace into targetChars pieces that overlap', () => {
    const text = 'abcdefghij'.repeat(400);
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(3);
    for (const chunk of chunks.slice(0, -1)) expect(chunk.text).toHaveLength(DEFAULT_CHUNKING.targetChars);
    expectWellFormed(text, DEFAULT_CHUNKING);
  });

  it('produces ordered, overlapping, bounded chunks that cover the body (default options)', () => {
    let split = 0;
    fc.assert(
      fc.property(body, (text) => {
        if (expectWellFormed(text, DEFAULT_CHUNKING) > 3) split += 1;
      }),
      { numRuns: 150 },
    );
    // The generator must actually produce long bodies, or the property says little.
    expect(split).toBeGreaterThan(30);
  });

  it('produces ordered, overlapping, bounded chunks that cover the body (any options)', () => {
    let split = 0;
    fc.assert(
      fc.property(body, options, (text, opts) => {
        if (expectWellFormed(text, opts) > 3) split += 1;
      }),
      { numRuns: 150 },
    );
    expect(split).toBeGreaterThan(30);
  });

  it('covers every non-whitespace character of arbitrary text, however much whitespace it holds', () => {
    // A run of whitespace longer than a window may fall between two chunks (a blank piece is not
    // stored), so coverage is of the visible text, not of every offset.
    const noisy = fc.string({
      unit: fc.constantFrom('a', 'b', 'Z', '.', '!', ' ', '\n', '\t', 'é', '字'),
      maxLength: 4000,
      size: 'max',
    });
    fc.assert(
      fc.property(noisy, options, (text, opts) => {
        const chunks = chunkText(text, opts);
        if (text.trim() === '') {
          expect(chunks).toEqual([]);
          return;
        }
        const covered = new Uint8Array(text.length);
        chunks.forEach((chunk, i) => {
          expect(chunk.chunkNo).toBe(i);
          expect(chunk.text).toBe(text.slice(chunk.charStart, chunk.charEnd).trim());
          expect(chunk.charEnd - chunk.charStart).toBeLessThanOrEqual(opts.targetChars);
          if (i > 0) expect(chunk.charStart).toBeGreaterThan(chunks[i - 1]!.charStart);
          covered.fill(1, chunk.charStart, chunk.charEnd);
        });
        const missed = Array.from({ length: text.length }, (_, at) => at).filter(
          (at) => /\S/.test(text.charAt(at)) && covered[at] !== 1,
        );
        expect(missed).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });

  it('cuts at paragraph breaks when a break lies in the second half of the window', () => {
    // Paragraphs of at most 500 characters guarantee a break in the second half of every
    // 1,200-character window, so every chunk but the last ends right after a blank line.
    const paragraphs = fc.array(
      fc
        .tuple(fc.integer({ min: 100, max: 500 }), sentence)
        .map(([length, first]) =>
          `${first} ${'rotor blade inspection. '.repeat(40)}`.slice(0, length).trim(),
        ),
      { minLength: 4, maxLength: 25, size: 'max' },
    );
    fc.assert(
      fc.property(paragraphs, (parts) => {
        const text = parts.join('\n\n');
        const chunks = chunkText(text);
        for (const chunk of chunks.slice(0, -1))
          expect(text.slice(chunk.charEnd - 2, chunk.charEnd)).toBe('\n\n');
        expectWellFormed(text, DEFAULT_CHUNKING);
      }),
      { numRuns: 100 },
    );
  });

  it('prefers a sentence end over a plain space when there is no paragraph break', () => {
    fc.assert(
      fc.property(fc.array(sentence, { minLength: 20, maxLength: 120, size: 'max' }), (sentences) => {
        // Sentences of at most 25 short words (< 300 chars) put a sentence end in every window half.
        const text = sentences.join(' ');
        const chunks = chunkText(text);
        for (const chunk of chunks.slice(0, -1))
          expect(text.slice(chunk.charStart, chunk.charEnd)).toMatch(/[.!?]["')\]]?\s$/);
      }),
      { numRuns: 100 },
    );
  });

  it('starts an overlapping chunk on a word boundary', () => {
    const text = Array.from({ length: 400 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkText(text);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks.slice(1)) expect(text.charAt(chunk.charStart - 1)).toBe(' ');
  });
});
