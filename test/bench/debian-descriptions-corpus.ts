// A second known-item retrieval set (issue 22), from a package registry: the English package
// descriptions of Debian 12 "bookworm" main (`main/i18n/Translation-en`, md5 b01cbbed…, the file apt
// fetches with `apt-get update -o Acquire::Languages=en`). Each package's one-line synopsis is a query
// whose one relevant document is that package (title = the package name, body = its long
// description). Synopses are short, natural-language and often worded unlike the description
// ("fast, scalable, distributed revision control system" → git), unlike manpage NAME lines.
// Packages that share a synopsis or whose description starts like another's (libfoo1 / libfoo-dev)
// are left out, so each query has exactly one right answer; a fixed sample by hash of the name
// keeps the set the same from run to run.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface KnownItem {
  readonly id: string;
  readonly query: string;
  readonly title: string;
  readonly body: string;
}

const LISTS = '/var/lib/apt/lists';
export const TRANSLATION_MD5 = 'b01cbbed65b70071f7c1e417122f9669';

function translationFile(): string | undefined {
  if (!existsSync(LISTS)) return undefined;
  const name = readdirSync(LISTS).find((file) =>
    /_debian_dists_bookworm_main_i18n_Translation-en(\.(lz4|xz|gz|bz2))?$/.test(file),
  );
  return name === undefined ? undefined : join(LISTS, name);
}

export function descriptionsAvailable(): boolean {
  return translationFile() !== undefined;
}

/** Fetches the file with apt (root only); returns whether it is there now. */
export function installDescriptions(): boolean {
  if (descriptionsAvailable()) return true;
  if (process.getuid?.() !== 0) return false;
  execFileSync('apt-get', ['update', '-q', '-o', 'Acquire::Languages=en'], { stdio: 'ignore' });
  return descriptionsAvailable();
}

/** The raw file's text (apt-helper undoes whatever compression apt stored it with) and its md5. */
function readTranslation(): { text: string; md5: string } {
  const file = translationFile();
  if (file === undefined) throw new Error('Translation-en is not in /var/lib/apt/lists');
  const text = execFileSync('/usr/lib/apt/apt-helper', ['cat-file', file], {
    maxBuffer: 256 * 1024 * 1024,
  }).toString('utf8');
  return { text, md5: createHash('md5').update(text).digest('hex') };
}

function parse(text: string): KnownItem[] {
  const items: KnownItem[] = [];
  for (const record of text.split(/\n\n+/)) {
    const id = /^Package: (.+)$/m.exec(record)?.[1];
    const description = /^Description-en: (.*)\n((?: .*\n?)*)/m.exec(record);
    if (id === undefined || description === null) continue;
    const query = (description[1] ?? '').trim();
    const body = (description[2] ?? '')
      .split('\n')
      .map((line) => (line === ' .' ? '' : line.replace(/^ /, '')))
      .join('\n')
      .trim();
    items.push({ id, query, title: id, body });
  }
  return items;
}

/** The set: up to `size` packages, each with a unique synopsis of ≥ 4 words and a unique description
 * of ≥ 300 characters. */
export function loadDebianDescriptions(size = 5000): { items: KnownItem[]; md5: string } {
  const { text, md5 } = readTranslation();
  const all = parse(text).filter((item) => item.body.length >= 300 && item.query.split(/\s+/).length >= 4);
  const counts = (key: (item: KnownItem) => string) => {
    const seen = new Map<string, number>();
    for (const item of all) seen.set(key(item), (seen.get(key(item)) ?? 0) + 1);
    return (item: KnownItem) => seen.get(key(item)) === 1;
  };
  const uniqueQuery = counts((item) => item.query.toLowerCase());
  const uniqueStart = counts((item) => item.body.slice(0, 200));
  const hash = (id: string) => createHash('sha256').update(id).digest('hex');
  const items = all
    .filter((item) => uniqueQuery(item) && uniqueStart(item))
    .sort((a, b) => (hash(a.id) < hash(b.id) ? -1 : 1))
    .slice(0, size);
  return { items, md5 };
}
