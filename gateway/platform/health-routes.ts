// Liveness and readiness, open without a key. Readiness goes false first on shutdown (STYLE 10).
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors/index.js';

export interface Lifecycle {
  ready: boolean;
}

export function registerHealthRoutes(app: FastifyInstance, lifecycle: Lifecycle): void {
  app.get('/healthz', { config: { access: 'public' } }, async () => Promise.resolve({ status: 'ok' }));
  app.get('/readyz', { config: { access: 'public' } }, async (request) => {
    if (!lifecycle.ready) throw new GatewayError('not_ready', 'The gateway is starting or shutting down.');
    return Promise.resolve({ status: 'ready', config_revision: request.snapshot.revision });
  });
}
