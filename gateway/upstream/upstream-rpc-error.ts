// A JSON-RPC error answered by an upstream over the relay, with the HTTP status it came with, so the
// gateway can relay it faithfully (e.g. 400 -32021 for a capability the client did not declare).
export class UpstreamRpcError extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data: unknown,
    readonly httpStatus: number,
  ) {
    super(message);
    this.name = 'UpstreamRpcError';
  }
}
