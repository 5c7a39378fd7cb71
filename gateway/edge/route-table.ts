// The routes an app serves, as fastify registered them (method and URL pattern, HEAD included):
// recorded by an `onRoute` hook so the running gateway can list them, and a test can hold every
// route to the header policy (issue 37.10) without a hand-kept list that a new route would escape.
import type { FastifyInstance } from 'fastify';

export interface RouteEntry {
  readonly method: string;
  readonly url: string;
}

const tables = new WeakMap<FastifyInstance, RouteEntry[]>();

/** Starts recording; call before the first route is registered. */
export function recordRoutes(app: FastifyInstance): void {
  const table: RouteEntry[] = [];
  tables.set(app, table);
  app.addHook('onRoute', (route) => {
    const methods = Array.isArray(route.method) ? route.method : [route.method];
    for (const method of methods) table.push({ method: String(method), url: route.url });
  });
}

/** The routes recorded for `app` (empty when `recordRoutes` was never called). */
export function routesOf(app: FastifyInstance): readonly RouteEntry[] {
  return tables.get(app) ?? [];
}
