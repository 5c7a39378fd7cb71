// Headers a request may carry once only (issue 28.7): Node keeps the first of two Authorization
// headers and joins or drops others, so "alpha's key, then beta's" was served as alpha while a proxy
// in front may have checked beta. A request with two Authorization or two Host headers is refused
// before anything reads them.
import type { FastifyRequest } from 'fastify';
import { GatewayError } from '../errors/index.js';

const SINGLE = ['authorization', 'host'] as const;

export async function refuseDuplicateHeaders(request: FastifyRequest): Promise<void> {
  await Promise.resolve();
  const raw = request.raw.rawHeaders;
  const seen = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    const name = (raw[i] as string).toLowerCase();
    if (!(SINGLE as readonly string[]).includes(name)) continue;
    if (seen.has(name))
      throw new GatewayError(
        'invalid_request',
        `The ${name === 'host' ? 'Host' : 'Authorization'} header appears more than once; send it once.`,
      );
    seen.add(name);
  }
}
