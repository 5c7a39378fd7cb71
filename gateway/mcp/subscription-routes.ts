// Where notification streams enter /mcp (issue 24): a hook ahead of the /mcp handler takes GET
// streams of 2025-era clients (legacy-event-stream.ts) and modern `subscriptions/listen` requests
// (subscriptions-listen.ts), after authentication and rate limits. A listen request runs the same
// inbound ladder as every POST; anything the ladder refuses, or any other method, goes on to the
// ordinary handler, which refuses or dispatches it as before.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { requirePrincipal } from '../edge/request-context.js';
import type { SubscriptionHub } from '../subscriptions/index.js';
import { headerOf, inboundHttpOf } from './inbound-http.js';
import { runLadder } from './inbound-ladder.js';
import { openLegacyStream, wantsLegacyStream } from './legacy-event-stream.js';
import type { TaskDeps } from './dispatch-tasks.js';
import type { FanOutDeps } from './source-fanout.js';
import { serveListen } from './subscriptions-listen.js';
import { routeOf } from '../platform/matched-route.js';

const LISTEN = 'subscriptions/listen';

/** What the hook may take: a legacy GET stream or a modern listen request on either MCP endpoint
 * (/mcp or a workspace's own /w/<workspace>/mcp). Everything else (undefined) passes at once. */
function interceptionOf(request: FastifyRequest): 'legacy-stream' | 'listen' | undefined {
  if (routeOf(request).config.face !== 'mcp') return undefined;
  if (wantsLegacyStream(request)) return 'legacy-stream';
  // Modern requests must carry Mcp-Method, equal to the body's method (checked by the ladder).
  return request.method === 'POST' && headerOf(request, 'mcp-method') === LISTEN ? 'listen' : undefined;
}

async function intercept(
  kind: 'legacy-stream' | 'listen',
  hub: SubscriptionHub,
  deps: FanOutDeps,
  request: FastifyRequest,
  reply: FastifyReply,
  tasks: TaskDeps | undefined,
): Promise<FastifyReply | undefined> {
  if (kind === 'legacy-stream') return openLegacyStream(hub, request, reply);
  const outcome = runLadder(inboundHttpOf(request));
  if (outcome.kind !== 'request' || outcome.era !== 'modern' || outcome.message.method !== LISTEN)
    return undefined;
  return serveListen(hub, deps, requirePrincipal(request.principal), outcome.message, reply, request, tasks);
}

export function registerSubscriptionRoutes(
  app: FastifyInstance,
  hub: SubscriptionHub,
  deps: FanOutDeps,
  tasks?: TaskDeps,
): void {
  // `done` style: the requests it does not take (nearly all) pass without a promise. One it takes
  // is answered (or hijacked) before `done`, and fastify then runs nothing further for it.
  app.addHook('preHandler', (request, reply, done) => {
    const kind = interceptionOf(request);
    if (kind === undefined) {
      done();
      return;
    }
    intercept(kind, hub, deps, request, reply, tasks).then(() => done(), done);
  });
}
