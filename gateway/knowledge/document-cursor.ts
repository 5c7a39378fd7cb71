// Opaque cursors for get_document paging (spec §4.2 rule 6, knowledge doc §7): they name the
// document, the next chunk and the document version, so a document that changed between pages fails
// clearly instead of mixing versions. Lookups are workspace-scoped, so a cursor grants nothing.
export interface DocumentCursor {
  readonly docId: string;
  readonly nextChunk: number;
  readonly version: string;
}

export function encodeCursor(cursor: DocumentCursor): string {
  return Buffer.from(JSON.stringify([cursor.docId, cursor.nextChunk, cursor.version])).toString('base64url');
}

export function decodeCursor(value: string): DocumentCursor | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8')) as unknown;
    if (!Array.isArray(parsed) || parsed.length !== 3) return undefined;
    const [docId, nextChunk, version] = parsed as unknown[];
    if (
      typeof docId !== 'string' ||
      typeof version !== 'string' ||
      !Number.isInteger(nextChunk) ||
      (nextChunk as number) < 0
    )
      return undefined;
    return { docId, nextChunk: nextChunk as number, version };
  } catch {
    return undefined;
  }
}
