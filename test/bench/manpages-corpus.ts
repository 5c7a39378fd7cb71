// The known-item retrieval corpus of knowledge doc §6: Debian `manpages-dev`, sections 2 and 3. Each
// page with a NAME line gives one query (its description without the function names) whose one
// relevant document is that page (body = the first 6,000 characters after NAME, troff stripped).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';
import { join } from 'node:path';

export interface ManPage {
  readonly id: string;
  readonly query: string;
  readonly body: string;
}

export const MAN_DIRS = ['/usr/share/man/man2', '/usr/share/man/man3'];

export function corpusAvailable(): boolean {
  return MAN_DIRS.every((dir) => existsSync(dir)) && existsSync(join(MAN_DIRS[0] as string, 'alarm.2.gz'));
}

function stripTroff(source: string): string {
  const out: string[] = [];
  for (const raw of source.split('\n')) {
    if (raw.startsWith('.\\"') || raw.startsWith('\'\\"')) continue;
    let line = raw;
    if (line.startsWith('.')) {
      const match = /^\.\s*([A-Za-z]{1,3})\s*(.*)$/.exec(line);
      if (match === null) continue;
      const [, macro, args] = match as unknown as [string, string, string];
      if (['B', 'I', 'BR', 'RB', 'BI', 'IB', 'RI', 'IR', 'SH', 'SS', 'TP', 'IP', 'SM', 'SB'].includes(macro))
        line = args.replace(/"/g, '');
      else continue;
    }
    line = line
      .replace(/\\f[BIRP]|\\f\(..|\\f\[[^\]]*\]/g, '')
      .replace(/\\-/g, '-')
      .replace(/\\\(em|\\\(en/g, ' ')
      .replace(/\\e/g, '\\')
      .replace(/\\\[[^\]]*\]|\\\(..|\\\*\(..|\\\*.|\\&|\\c|\\%/g, '')
      .trim();
    if (line !== '') out.push(line);
  }
  return out.join('\n');
}

export function loadManPages(limit = Number.POSITIVE_INFINITY): ManPage[] {
  const pages: ManPage[] = [];
  for (const dir of MAN_DIRS) {
    for (const file of readdirSync(dir).sort()) {
      if (!file.endsWith('.gz') || pages.length >= limit) continue;
      const source = gunzipSync(readFileSync(join(dir, file))).toString('utf8');
      if (/^\.so /m.test(source.split('\n').find((l) => !l.startsWith('.\\"')) ?? '')) continue;
      const name = /^\.SH NAME\s*\n([\s\S]*?)(?=^\.SH )/m.exec(source)?.[1];
      if (name === undefined) continue;
      const nameText = stripTroff(name).replace(/\n/g, ' ');
      const dash = nameText.indexOf(' - ');
      if (dash < 0) continue;
      const query = nameText.slice(dash + 3).trim();
      const afterName = source.slice(source.indexOf(name) + name.length);
      const body = stripTroff(afterName).slice(0, 6000);
      if (query === '' || body === '') continue;
      pages.push({ id: file.replace(/\.gz$/, ''), query, body });
    }
  }
  return pages;
}
