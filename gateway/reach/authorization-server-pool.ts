// The connections the gateway opens to authorization servers (issue 29) come from pools of their
// own, with the idle and stall bounds of authorization-server-bounds.ts. A workspace under a tenant
// reach policy gets them from its guard's `fetch('authorization-server')`; the others share this
// unguarded pool. docs/security.md.
import type { Agent } from 'undici';
import { undici } from '../platform/undici-lazy.js';
import { AUTHORIZATION_SERVER_POOL } from './authorization-server-bounds.js';
import { fetchThrough } from './fetch-through.js';
import type { NetworkGuard } from './network-guard.js';

/** The pool of workspaces without a reach policy; one per process, closed at shutdown. */
export class AuthorizationServerPool {
  private agent: Agent | undefined;
  readonly fetch: typeof fetch = fetchThrough(
    () => (this.agent ??= new (undici().Agent)(AUTHORIZATION_SERVER_POOL)),
  );

  /** The workspace's guarded fetch with the same bounds, or this pool's. */
  fetchFor(guard: NetworkGuard | undefined): typeof fetch {
    return guard?.fetch('authorization-server') ?? this.fetch;
  }

  async close(): Promise<void> {
    const agent = this.agent;
    this.agent = undefined;
    await agent?.close().catch(() => undefined);
  }
}
