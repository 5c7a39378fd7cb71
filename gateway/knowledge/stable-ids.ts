// Stable ids (spec §2.2): a document id is derived from workspace, source and the item's own id, so
// it survives re-syncs while the item exists; a chunk id is the document id plus the chunk number.
import { createHash } from 'node:crypto';

export function documentId(workspace: string, source: string, externalId: string): string {
  const digest = createHash('sha256')
    .update(`${workspace}\u0000${source}\u0000${externalId}`)
    .digest('base64url');
  return `d_${digest.slice(0, 22)}`;
}

export function chunkId(docId: string, chunkNo: number): string {
  return `${docId}#c${chunkNo}`;
}

export function parseChunkId(value: string): { docId: string; chunkNo: number } | undefined {
  const match = /^(d_[A-Za-z0-9_-]{22})#c(\d{1,6})$/.exec(value);
  return match === null ? undefined : { docId: match[1] as string, chunkNo: Number(match[2]) };
}

export function contentHash(...parts: readonly string[]): string {
  const hash = createHash('sha256');
  // Length-prefixed parts: moving text from one part to the next always changes the hash.
  for (const part of parts) hash.update(`${part.length}:`).update(part);
  return hash.digest('hex');
}
