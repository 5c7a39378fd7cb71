// Shared builders for the knowledge-layer unit tests: a document indexed the way the sync engine
// indexes it (stable id, content hash, chunker), and principals built from a validated config.
import { principalFor, type Principal } from '../../../gateway/auth/principal.js';
import { validateConfig, type EmbeddingsConfig, type GatewayConfig } from '../../../gateway/config/index.js';
import { chunkText, contentHash, documentId, type WorkspaceStore } from '../../../gateway/knowledge/index.js';

export interface DocumentSpec {
  readonly sourceId: string;
  readonly sourceType?: string;
  readonly externalId: string;
  readonly title: string;
  readonly body: string;
  readonly url?: string;
}

/** Upserts one document with its chunks and returns its stable id. */
export async function indexDocument(
  store: WorkspaceStore,
  spec: DocumentSpec,
  chunking?: Parameters<typeof chunkText>[1],
): Promise<string> {
  const docId = documentId(store.workspaceId, spec.sourceId, spec.externalId);
  await store.upsertDocument(
    {
      docId,
      sourceId: spec.sourceId,
      sourceType: spec.sourceType ?? 'files',
      externalId: spec.externalId,
      title: spec.title,
      url: spec.url,
      updatedAt: undefined,
      contentHash: contentHash(spec.title, spec.body),
      bodyChars: spec.body.length,
    },
    chunkText(spec.body, chunking),
  );
  return docId;
}

/** `indexDocument` into the `docs` files source, the one most store tests search. */
export function indexInDocs(store: WorkspaceStore, spec: Omit<DocumentSpec, 'sourceId'>): Promise<string> {
  return indexDocument(store, { sourceId: 'docs', ...spec });
}

const ZERO_HASH = `sha256:${'0'.repeat(64)}`;

/** A validated, frozen config: each workspace gets the named `files` data sources and one key per
 * entry of `keys` (its source patterns). */
export function knowledgeConfig(
  workspaces: readonly { name: string; dataSources: readonly string[]; keys: readonly string[][] }[],
): GatewayConfig {
  let keyNo = 0;
  const result = validateConfig({
    version: 1,
    workspaces: workspaces.map((w) => ({
      name: w.name,
      dataSources: w.dataSources.map((name) => ({ name, type: 'files', path: `/srv/${name}` })),
      keys: w.keys.map((sources) => {
        keyNo += 1;
        return { id: `KEY${String(keyNo).padStart(7, '0')}`, hash: ZERO_HASH, sources };
      }),
    })),
  });
  if (!result.ok) throw new Error(`fixture config invalid: ${JSON.stringify(result.problems)}`);
  return result.config;
}

/** The principal of key `keyIndex` of workspace `name`, built as authentication builds it. */
export function principalOf(config: GatewayConfig, name: string, keyIndex = 0): Principal {
  const workspace = config.workspaces.find((w) => w.name === name);
  const key = workspace?.keys[keyIndex];
  if (workspace === undefined || key === undefined) throw new Error(`no key ${keyIndex} in ${name}`);
  return principalFor(key, workspace);
}

/** Embeddings settings for the hashing twin (no server behind the URL): the sync tests' workspace. */
export const HASHING_EMBEDDINGS: EmbeddingsConfig = {
  baseUrl: 'http://127.0.0.1:9/v1',
  model: 'hashing-v1',
  dimensions: 32,
  batchSize: 64,
  concurrency: 2,
  timeoutMs: 30_000,
  maxRetries: 0,
  cacheMaxEntries: 0,
  queryTimeoutMs: 2_000,
};
