// Title and plain text by file type (issue 4): Markdown takes its first heading, HTML loses tags,
// scripts and styles and decodes entities, JSON becomes `key: value` lines; the file name is the
// fallback title (when it means something: file-name-title.test.ts).
import { describe, expect, it } from 'vitest';
import { extractText } from '../../../../gateway/knowledge/connectors/index.js';

describe('extractText: Markdown', () => {
  it('takes the title from the first heading and keeps the text as it is', () => {
    const text = 'Intro line\n\n# Revoking keys\n\nRun the revoke command.\n\n# Second\n';
    expect(extractText('docs/revoke.md', text)).toEqual({ title: 'Revoking keys', body: text });
    expect(extractText('a.markdown', '## Sub title  \ntext').title).toBe('Sub title');
  });

  it('falls back to the file name without a heading', () => {
    expect(extractText('docs/notes.md', 'no heading here\n#hashtag is not one')).toEqual({
      title: 'notes.md',
      body: 'no heading here\n#hashtag is not one',
    });
  });
});

describe('extractText: HTML', () => {
  const page = [
    '<!doctype html><html><head><title>Circuit &amp; breakers</title>',
    '<style>p { color: red; }</style><script type="text/javascript">var secret = "token";</script>',
    '</head><body><h1>Breakers</h1><p>A breaker opens when an upstream &lt;source&gt; fails.</p>',
    '<SCRIPT>alert("x")</SCRIPT><noscript>enable js</noscript>',
    '<p>Caf&eacute; &#233;t&#xE9; &quot;quoted&quot; &apos;single&apos;&nbsp;end</p></body></html>',
  ].join('\n');

  it('uses <title>, with entities decoded', () => {
    expect(extractText('site/breakers.html', page).title).toBe('Circuit & breakers');
  });

  it('drops scripts, styles and tags and decodes entities in the text', () => {
    const { body } = extractText('site/breakers.htm', page);
    for (const removed of ['secret', 'color', 'alert', 'enable js', '<p>', '<h1>', '</', 'doctype'])
      expect(body).not.toContain(removed);
    expect(body).toContain('A breaker opens when an upstream <source> fails.');
    expect(body).toContain('été "quoted" \'single\' end');
    // Unknown named entities are left as they are.
    expect(body).toContain('Caf&eacute;');
    expect(body).toContain('Breakers');
  });

  it('turns block ends into line breaks', () => {
    const { body } = extractText('a.html', '<p>one</p><p>two</p><div>three</div>four<br>five');
    expect(body.split(/\n+/).map((l) => l.trim())).toEqual(['one', 'two', 'three', 'four', 'five']);
  });

  it('falls back to the file name without a usable <title>', () => {
    expect(extractText('x/page.html', '<p>text</p>').title).toBe('page.html');
    expect(extractText('x/page.html', '<title>  </title><p>text</p>').title).toBe('page.html');
  });

  // BUG (gateway/knowledge/connectors/text-extract.ts:15-16, called unguarded at
  // files-connector.ts:45): a numeric entity beyond U+10FFFF (`&#99999999;`, `&#x110000;`) makes
  // String.fromCodePoint throw a RangeError. The files connector does not catch it, so one
  // malformed page fails the whole data source's sync, on every run.
  it('survives numeric entities outside the Unicode range', () => {
    expect(extractText('bad.html', '<p>before &#99999999; after &#x110000;</p>').body).toContain('before');
  });
});

describe('extractText: JSON', () => {
  it('flattens to key: value lines with dotted and indexed paths', () => {
    const text = JSON.stringify({
      title: 'Ticket 42',
      status: 'open',
      count: 3,
      done: false,
      owner: { name: 'Ana', tags: ['a', 'b'] },
      empty: null,
    });
    expect(extractText('t/ticket.json', text)).toEqual({
      title: 'Ticket 42',
      body: [
        'title: Ticket 42',
        'status: open',
        'count: 3',
        'done: false',
        'owner.name: Ana',
        'owner.tags[0]: a',
        'owner.tags[1]: b',
      ].join('\n'),
    });
  });

  it('takes the title from name when there is no title', () => {
    expect(extractText('p.json', '{"name":"Widget","id":1}').title).toBe('Widget');
  });

  it('falls back to the file name for untitled, non-object or invalid JSON', () => {
    expect(extractText('part.json', '{"id":1}')).toEqual({ title: 'part.json', body: 'id: 1' });
    expect(extractText('list.json', '[{"title":"x"}]')).toEqual({ title: 'list.json', body: '[0].title: x' });
    expect(extractText('part.json', '{"title":7}').title).toBe('part.json');
    expect(extractText('bad.json', '{not json')).toEqual({ title: 'bad.json', body: '{not json' });
  });
});

describe('extractText: other files', () => {
  it('keeps plain text whole and titles it by file name', () => {
    expect(extractText('dir/README.TXT', 'Hello\n<b>not html</b>')).toEqual({
      title: 'README.TXT',
      body: 'Hello\n<b>not html</b>',
    });
    expect(extractText('Makefile', 'all:')).toEqual({ title: 'Makefile', body: 'all:' });
  });

  it('picks the type case-insensitively from the extension', () => {
    expect(extractText('A.HTML', '<title>T</title><p>x</p>')).toEqual({ title: 'T', body: 'T x' });
    expect(extractText('B.MD', '# Head').title).toBe('Head');
  });
});
