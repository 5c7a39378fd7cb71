// Indexes this repository's docs the way the default config does (examples/embedded.yaml, the `docs`
// files source: the same include globs, the files connector, the sync engine's chunking) into an
// embedded store under workspace `bench`, source `src`, for the answer benchmark and its tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseConfigText } from '../../../gateway/config/index.js';
import { filesConnector } from '../../../gateway/knowledge/connectors/files-connector.js';
import { chunkText, contentHash, documentId, type KnowledgeStore } from '../../../gateway/knowledge/index.js';

/** The `docs` source of examples/embedded.yaml, rooted at `root`. */
function defaultDocsSource(root: string) {
  const parsed = parseConfigText(readFileSync(join(root, 'examples/embedded.yaml'), 'utf8'));
  if (!parsed.ok) throw new Error('examples/embedded.yaml does not parse');
  const source = parsed.config.workspaces
    .flatMap((w) => w.dataSources)
    .find((s) => s.name === 'docs' && s.type === 'files');
  if (source?.type !== 'files') throw new Error('examples/embedded.yaml has no files source `docs`');
  return { ...source, path: root };
}

/** Documents indexed, by external id (the path relative to `root`). */
export async function indexDocs(store: KnowledgeStore, root: string): Promise<Map<string, string>> {
  const ws = store.workspace('bench');
  const docs = new Map<string, string>();
  for await (const item of filesConnector(defaultDocsSource(root)).items(AbortSignal.timeout(120_000))) {
    const docId = documentId('bench', 'src', item.externalId);
    await ws.upsertDocument(
      {
        docId,
        sourceId: 'src',
        sourceType: 'files',
        externalId: item.externalId,
        title: item.title,
        url: item.url,
        updatedAt: undefined,
        contentHash: contentHash(item.title, item.body),
        bodyChars: item.body.length,
      },
      chunkText(item.body),
    );
    docs.set(item.externalId, docId);
  }
  return docs;
}
