// Heading paths of chunks (issue 39 goal 3): the Markdown heading path in effect where each chunk
// starts, nested, with `#` lines in fenced code ignored, setext headings read, a heading inside the
// chunk left to the chunk; plain text (man pages) gets none and chunks exactly as before.
import { describe, expect, it } from 'vitest';
import { headingPaths, indexedTitle, markdownHeadings } from '../../../gateway/knowledge/chunk-headings.js';
import { chunkText } from '../../../gateway/knowledge/index.js';

const filler = (word: string, n: number) =>
  Array.from({ length: n }, (_, i) => `The ${word} sentence number ${i} says a little more.`).join(' ');

describe('heading paths', () => {
  it('knowledge:heading-path — nested ATX headings replace their level and deeper; code fences hide #', () => {
    const body = [
      '# Guide',
      '',
      '## Upstream MCP sources',
      '',
      'Intro text.',
      '',
      '```sh',
      '# not a heading',
      '```',
      '',
      '### Time-outs and breakers',
      '',
      'Breaker text.',
      '',
      '## Second',
      '',
      'Tail.',
    ].join('\n');
    const at = (text: string) => body.indexOf(text);
    expect(headingPaths(body, [0, at('Intro'), at('```'), at('Breaker'), at('Tail')])).toEqual([
      undefined,
      'Guide › Upstream MCP sources',
      'Guide › Upstream MCP sources',
      'Guide › Upstream MCP sources › Time-outs and breakers',
      'Guide › Second',
    ]);
    // A chunk that starts on a heading line: the heading is its own text, its path is the parent's.
    expect(headingPaths(body, [at('### Time-outs')])).toEqual(['Guide › Upstream MCP sources']);
  });

  it('knowledge:heading-path — setext headings, closing #s and inline Markdown taken off', () => {
    const body =
      'Title\n=====\n\nSection `one`\n-------------\n\nText.\n\n## The **[links](http://x)** ##\n\nMore.';
    expect(markdownHeadings(body).map(({ level, text }) => [level, text])).toEqual([
      [1, 'Title'],
      [2, 'Section one'],
      [2, 'The links'],
    ]);
    // A --- thematic break after a blank line, and YAML front matter, are no headings.
    expect(markdownHeadings('---\ntitle: x\n---\n\nText.\n\n---\n\nMore.')).toEqual([]);
  });

  it("knowledge:heading-path — a chunk cut mid-section carries the section; a heading mid-chunk is the next chunk's", () => {
    const body = [
      '# Configuration',
      '',
      '## Time-outs and breakers',
      '',
      filler('breaker', 40),
      '',
      '## Retries',
      '',
      filler('retry', 40),
    ].join('\n');
    const chunks = chunkText(body);
    expect(chunks.length).toBeGreaterThanOrEqual(4);
    expect(chunks[0]?.heading).toBeUndefined();
    const mid = chunks[1];
    expect(mid?.text).toMatch(/^breaker sentence/);
    expect(mid?.heading).toBe('Configuration › Time-outs and breakers');
    const spanning = chunks.find((c) => c.text.includes('## Retries'));
    expect(spanning?.heading).toBe('Configuration › Time-outs and breakers');
    expect(chunks.at(-1)?.heading).toBe('Configuration › Retries');
    // The heading is indexed with the title; the chunk's text is untouched.
    expect(chunks.map((c) => c.text).join('')).not.toContain('›');
    expect(indexedTitle('Docs', mid?.heading)).toBe('Docs Configuration › Time-outs and breakers');
    expect(indexedTitle('Docs', undefined)).toBe('Docs');
    // Segments the title already says are not indexed twice (the page's own # heading, "HTTP API").
    expect(indexedTitle('Configuration', mid?.heading)).toBe('Configuration Time-outs and breakers');
    expect(indexedTitle('HTTP API and MCP', 'HTTP API and MCP › HTTP API › Keys')).toBe(
      'HTTP API and MCP Keys',
    );
    expect(indexedTitle('Guide', 'Guide')).toBe('Guide');
  });

  it('knowledge:heading-plain-text — man page text (a "# include" synopsis line) gets no heading and chunks as before', () => {
    // As the manpages-dev corpus strips it: lines with no blank line between them.
    const page = [
      'LIBRARY',
      'Standard C library',
      'SYNOPSIS',
      '#include <sys/syscall.h>      /* Definition of  SYS_*  constants */',
      '#if defined __i386__ || defined __x86_64__',
      '# include <asm/ldt.h>         /* Definition of  struct user_desc  */',
      '#endif',
      'DESCRIPTION',
      filler('thread', 60),
      '=====',
    ].join('\n');
    const chunks = chunkText(page);
    expect(chunks.length).toBeGreaterThan(2);
    for (const chunk of chunks)
      expect(Object.keys(chunk)).toEqual(['chunkNo', 'text', 'charStart', 'charEnd']);
  });
});
