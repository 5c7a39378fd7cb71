// What an upstream's answer can be, short of a valid MCP message: an HTTP failure status, bytes
// that are not MCP (bad JSON, a stream that ends without the answer, the answer to another
// request), or more bytes than the source allows. Each is classified on its own (§7.1).

/** The upstream answered with an HTTP status that carries no MCP message. */
export class UpstreamHttpError extends Error {
  constructor(readonly status: number) {
    super(`upstream answered HTTP ${status}`);
    this.name = 'UpstreamHttpError';
  }
}

/** The upstream answered, but not with a valid MCP message for the request. */
export class UpstreamProtocolError extends Error {
  constructor(readonly reason: string) {
    super(`upstream answer is not valid MCP: ${reason}`);
    this.name = 'UpstreamProtocolError';
  }
}

/** An upstream answer (or one event of it) passed the source's `limits.maxResponseBytes`. */
export class UpstreamResponseTooLargeError extends Error {
  constructor(readonly limitBytes: number) {
    super(`upstream response exceeded ${limitBytes} bytes`);
    this.name = 'UpstreamResponseTooLargeError';
  }
}

export type AnswerError = UpstreamProtocolError | UpstreamResponseTooLargeError;

/** The guard's verdict found in `error` or its `cause` chain (SDKs wrap what fetch threw). */
export function findAnswerError(error: unknown): AnswerError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && current !== undefined; depth += 1) {
    if (current instanceof UpstreamProtocolError || current instanceof UpstreamResponseTooLargeError)
      return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
