// A file titled by its name only when the name means something (issue 39 goal 4): id-like names
// (digits, hex digests, UUIDs, a letter and a number) give an empty title, so they are neither
// embedded in front of every chunk nor weighted as a title in lexical search.
import { describe, expect, it } from 'vitest';
import { extractText } from '../../../../gateway/knowledge/connectors/index.js';
import {
  fileNameTitle,
  isMeaningfulFileName,
} from '../../../../gateway/knowledge/connectors/file-name-title.js';

describe('isMeaningfulFileName', () => {
  it('keeps names that carry a word', () => {
    for (const name of [
      'circuit-breakers.md',
      'README.md',
      'README',
      'alarm.2',
      'libfoo-dev',
      'ls.1',
      'Makefile',
      '.bashrc',
      'mp3-tags.txt',
      '2024-report.txt',
      'img_0001-holiday.jpg',
      'deadbeef.txt',
      'docs/sub/notes.txt',
      'café.txt',
      '文档.txt',
    ])
      expect(isMeaningfulFileName(name), name).toBe(true);
  });

  it('drops id-like names: digits, a letter and digits, hex digests, UUIDs', () => {
    for (const name of [
      'd004795.txt',
      'corpus/d004795.txt',
      '0001.txt',
      '0001',
      '12-34-56.txt',
      'v2.txt',
      // One letter with digits reads as an id, however well known the name.
      'x11.conf',
      'x.md',
      'img0001.jpg',
      '3f2a9c0b1d4e.txt',
      'c0ffee12.json',
      '123e4567-e89b-12d3-a456-426614174000.txt',
      '1b4e28ba-2fa1-11d2-883f-0016d3cca427',
      'e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855.html',
      '_-_.txt',
    ])
      expect(isMeaningfulFileName(name), name).toBe(false);
  });

  it('titles a file by its base name, or not at all', () => {
    expect(fileNameTitle('docs/circuit-breakers.md')).toBe('circuit-breakers.md');
    expect(fileNameTitle('docs/d004795.txt')).toBe('');
  });
});

describe('extractText with an id-like file name', () => {
  it('gives an empty title when neither the content nor the name names the file', () => {
    expect(extractText('set/d004795.txt', 'Debian package notes')).toEqual({
      title: '',
      body: 'Debian package notes',
    });
    expect(extractText('0001.md', 'no heading').title).toBe('');
    expect(extractText('c0ffee12.json', '{"id":1}').title).toBe('');
    expect(extractText('0042.html', '<p>text</p>').title).toBe('');
  });

  it('still prefers a heading, <title> or title field over the name', () => {
    expect(extractText('0001.md', '# Rotating keys\n\ntext').title).toBe('Rotating keys');
    expect(extractText('0042.html', '<title>Breakers</title><p>x</p>').title).toBe('Breakers');
    expect(extractText('0007.json', '{"title":"Ticket 7"}').title).toBe('Ticket 7');
  });
});
