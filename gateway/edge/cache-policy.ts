// What every answer says about caching (issue 37.10, docs/api.md): `Cache-Control: no-store` unless
// the route set its own — API answers, /mcp, errors and health carry caller-specific or live data
// that no browser, proxy or CDN may keep. Routes that may be cached say so themselves: the console's
// static files (`no-cache`, revalidated by ETag) and the public RFC 9728 metadata. Event streams are
// written past fastify (hijacked) and set the same value where they write their head.
import type { FastifyInstance } from 'fastify';

export const NO_STORE = 'no-store';

export function registerCachePolicy(app: FastifyInstance): void {
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (!reply.hasHeader('cache-control')) void reply.header('cache-control', NO_STORE);
    done(null, payload);
  });
}
