// Liveness and readiness, open without a key. Readiness goes false first on shutdown (STYLE 10).
import type { FastifyInstance } from 'fastify';
import { GatewayError } from '../errors/index.js';

export interface Lifecycle {
  ready: boolean;
}

export function registerHealthRoutes(app: FastifyInstance, lifecycle: Lifecycle): void {
  // Probes run every few seconds from the kubelet and load balancers: recording them would bury
  // the audit trail in noise, and they carry no caller and touch no data (docs/audit.md).
  const options = { config: { access: 'public', audit: 'skip' } } as const;
  app.get('/healthz', options, async () => Promise.resolve({ status: 'ok' }));
  app.get('/readyz', options, async (request) => {
    if (!lifecycle.ready) throw new GatewayError('not_ready', 'The gateway is starting or shutting down.');
    return Promise.resolve({ status: 'ready', config_revision: request.snapshot.revision });
  });
}
