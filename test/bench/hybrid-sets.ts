// The known-item sets of the hybrid retrieval benchmark (issues 22, 39): for each corpus
// (manpages-dev, Debian package descriptions) a natural-language set (NAME line → page, synopsis →
// package) and a keyword-style set (three random content words of one chunk of a seeded sample of
// documents → that document), and the fixed train / held-out split of every set (by a hash of the
// query's id) on which the fusion rule was chosen (train) and checked (held-out).
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { chunkText } from '../../gateway/knowledge/index.js';
import { STOP_WORDS } from '../../gateway/knowledge/query-terms.js';
import { seededRandom } from '../../gateway/knowledge/seeded-random.js';
import { installDescriptions, loadDebianDescriptions } from './debian-descriptions-corpus.js';
import { corpusAvailable, loadManPages } from './manpages-corpus.js';

export type Half = 'train' | 'held-out';

export interface KnownItemQuery {
  /** Stable across runs: the split is a hash of it. */
  readonly id: string;
  readonly text: string;
  readonly relevant: string;
  readonly half: Half;
}

export interface KnownItemSet {
  readonly name: string;
  /** natural: the corpus's own one-line descriptions; keyword: three random content words. */
  readonly style: 'natural' | 'keyword';
  readonly corpus: 'manpages' | 'debian';
  readonly docs: readonly { id: string; title: string; body: string }[];
  readonly queries: readonly KnownItemQuery[];
}

/** Keyword-style queries per corpus: enough for a stable MRR, few enough for two busy cores. */
export const KEYWORD_QUERIES = 1500;
const KEYWORD_SEED = 39;

/** Half of every set trains the fusion rule, the other half checks it: a hash of the query id. */
export function halfOf(id: string): Half {
  return (createHash('sha256').update(`split\u0000${id}`).digest()[0] as number) < 128 ? 'train' : 'held-out';
}

/** Three distinct content words (letters only, ≥ 3 characters, not stop words, not in the title) of
 * one random chunk of the document, or undefined when no chunk has three. */
export function keywordQuery(doc: { title: string; body: string }, random: () => number): string | undefined {
  const titleWords = new Set(doc.title.toLowerCase().split(/[^a-z]+/));
  const chunks = chunkText(doc.body)
    .map((chunk) => [
      ...new Set(
        (chunk.text.match(/[A-Za-z]+/g) ?? [])
          .map((word) => word.toLowerCase())
          .filter((word) => word.length >= 3 && !STOP_WORDS.has(word) && !titleWords.has(word)),
      ),
    ])
    .filter((words) => words.length >= 3);
  if (chunks.length === 0) return undefined;
  const words = [...(chunks[Math.floor(random() * chunks.length)] as string[])];
  const picked: string[] = [];
  while (picked.length < 3) picked.push(words.splice(Math.floor(random() * words.length), 1)[0] as string);
  return picked.join(' ');
}

function keywordSet(corpus: KnownItemSet['corpus'], label: string, docs: KnownItemSet['docs']): KnownItemSet {
  const random = seededRandom(KEYWORD_SEED);
  // A seeded shuffle (Fisher-Yates) of the documents, then the first that yield a query.
  const order = docs.map((_, index) => index);
  for (let i = order.length - 1; i > 0; i -= 1) {
    const j = Math.floor(random() * (i + 1));
    [order[i], order[j]] = [order[j] as number, order[i] as number];
  }
  const queries: KnownItemQuery[] = [];
  for (const index of order) {
    if (queries.length === KEYWORD_QUERIES) break;
    const doc = docs[index] as KnownItemSet['docs'][number];
    const text = keywordQuery(doc, random);
    if (text === undefined) continue;
    const id = `${corpus}:keyword:${doc.id}`;
    queries.push({ id, text, relevant: doc.id, half: halfOf(id) });
  }
  return {
    name: `${label}, keyword-style (${queries.length} documents sampled with seed ${KEYWORD_SEED}: three random content words of one chunk → document)`,
    style: 'keyword',
    corpus,
    docs,
    queries,
  };
}

function naturalQueries(corpus: string, items: readonly { id: string; query: string }[]): KnownItemQuery[] {
  return items.map((item) => {
    const id = `${corpus}:natural:${item.id}`;
    return { id, text: item.query, relevant: item.id, half: halfOf(id) };
  });
}

/** The four sets (two per corpus present on this machine), natural-language first. */
export function hybridSets(): KnownItemSet[] {
  const found: KnownItemSet[] = [];
  if (!corpusAvailable() && process.getuid?.() === 0)
    execFileSync('apt-get', ['install', '-y', '-q', 'manpages-dev'], { stdio: 'ignore' });
  if (corpusAvailable()) {
    const pages = loadManPages();
    const docs = pages.map((p) => ({ id: p.id, title: p.id, body: p.body }));
    const label = 'manpages-dev 6.03 sections 2+3';
    found.push({
      name: `${label} (${pages.length} pages, NAME description → page)`,
      style: 'natural',
      corpus: 'manpages',
      docs,
      queries: naturalQueries('manpages', pages),
    });
    found.push(keywordSet('manpages', label, docs));
  } else console.log('manpages-dev: skipped (install the Debian package manpages-dev)');
  if (installDescriptions()) {
    const { items, md5 } = loadDebianDescriptions();
    const docs = items.map((i) => ({ id: i.id, title: i.title, body: i.body }));
    const label = `Debian 12 package descriptions (Translation-en md5 ${md5.slice(0, 8)}…)`;
    found.push({
      name: `${label} (${items.length} packages, synopsis → package)`,
      style: 'natural',
      corpus: 'debian',
      docs,
      queries: naturalQueries('debian', items),
    });
    found.push(keywordSet('debian', label, docs));
  } else console.log('Debian descriptions: skipped (run as root with network to the Debian mirror)');
  return found;
}
