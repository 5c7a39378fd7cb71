// The one error type domain code throws. It carries a catalogue code and a message that is safe to
// show the caller: never a secret, a header value, an argument or retrieved content.
import { catalogueEntry, type ErrorCode, type CatalogueEntry } from './error-catalogue.js';

export interface GatewayErrorOptions {
  /** Caller-safe structured detail, e.g. the failing field paths of a validation error. */
  readonly details?: readonly ErrorDetail[];
  /** Extra response headers, e.g. `WWW-Authenticate` on 401. */
  readonly headers?: Readonly<Record<string, string>>;
  /** The underlying cause, kept for server-side diagnosis only; never rendered. */
  readonly cause?: unknown;
}

export interface ErrorDetail {
  readonly path: string;
  readonly problem: string;
}

export class GatewayError extends Error {
  readonly code: ErrorCode;
  readonly entry: CatalogueEntry;
  readonly details: readonly ErrorDetail[];
  readonly headers: Readonly<Record<string, string>>;

  constructor(code: ErrorCode, message?: string, options: GatewayErrorOptions = {}) {
    const entry = catalogueEntry(code);
    super(message ?? entry.message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'GatewayError';
    this.code = code;
    this.entry = entry;
    this.details = options.details ?? [];
    this.headers = options.headers ?? {};
  }
}

export function isGatewayError(value: unknown): value is GatewayError {
  return value instanceof GatewayError;
}
