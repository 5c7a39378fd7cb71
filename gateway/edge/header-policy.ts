// Headers a request may carry once only (issue 28.7): Node keeps the first of two Authorization
// headers and joins or drops others, so "alpha's key, then beta's" was served as alpha while a proxy
// in front may have checked beta. A request with two Authorization or two Host headers is refused
// before anything reads them.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/index.js';

/** The name of a header that appeared twice and may appear once only, else undefined. Only names of
 * the two lengths are folded to lower case (no string per header on the common path). */
export function repeatedSingleHeader(rawHeaders: readonly string[]): 'host' | 'authorization' | undefined {
  let host = false;
  let authorization = false;
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i] as string;
    if (name.length === 4 && name.toLowerCase() === 'host') {
      if (host) return 'host';
      host = true;
    } else if (name.length === 13 && name.toLowerCase() === 'authorization') {
      if (authorization) return 'authorization';
      authorization = true;
    }
  }
  return undefined;
}

/** An onRequest hook; `done` style, as it never waits (issue 45). */
export function refuseDuplicateHeaders(
  request: FastifyRequest,
  _reply: FastifyReply,
  done: (error?: Error) => void,
): void {
  const repeated = repeatedSingleHeader(request.raw.rawHeaders);
  done(
    repeated === undefined
      ? undefined
      : new GatewayError(
          'invalid_request',
          `The ${repeated === 'host' ? 'Host' : 'Authorization'} header appears more than once; send it once.`,
        ),
  );
}
