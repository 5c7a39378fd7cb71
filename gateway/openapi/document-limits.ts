// The bounds an OpenAPI document is read under (issue 44), and the error that refuses a document as a
// whole. A tenant writes the document, so every cost of reading it is bounded: its size, its number
// of operations, what its $refs expand to, and per tool the depth and size of the input schema.

export interface DocumentLimits {
  /** The document's text, in UTF-8 bytes (20 MiB). */
  readonly maxDocumentBytes: number;
  /** Operations in the whole document, before any filter (2,000). */
  readonly maxOperations: number;
  /** Nesting of schemas in one tool's input schema; deeper operations are skipped (32). */
  readonly maxSchemaDepth: number;
  /** One tool's input schema, serialized; larger operations are skipped (256 KiB). */
  readonly maxInputSchemaBytes: number;
  /**
   * The whole document with every `$ref` written out (a circular one once), serialized (256 MiB).
   * Validation walks that expansion, so a document whose refs fan out (billion laughs) is refused
   * before it is validated.
   */
  readonly maxExpandedBytes: number;
}

export const DOCUMENT_LIMIT_DEFAULTS: DocumentLimits = Object.freeze({
  maxDocumentBytes: 20 * 1024 * 1024,
  maxOperations: 2000,
  maxSchemaDepth: 32,
  maxInputSchemaBytes: 256 * 1024,
  maxExpandedBytes: 256 * 1024 * 1024,
});

/** A document the gateway will not read; `condition` is one sentence safe to show its admin. */
export class OpenApiDocumentError extends Error {
  readonly condition: string;
  constructor(condition: string) {
    super(`OpenAPI document refused: ${condition}`);
    this.name = 'OpenApiDocumentError';
    this.condition = condition;
  }
}

/** `31 MiB`, `12.5 KiB`, `900 bytes`: sizes in conditions. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} bytes`;
  const [value, unit] = bytes < 1024 * 1024 ? [bytes / 1024, 'KiB'] : [bytes / (1024 * 1024), 'MiB'];
  return `${Number(value.toFixed(1))} ${unit}`;
}

/** Text from a document, cut to `max` characters for a condition or a reason. */
export function quoted(text: string, max = 120): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}
