// The SessionStore port (D6, issue 10): where a 2025-era upstream's `Mcp-Session-Id` is kept so
// that every replica talks to the upstream in one session. The key is a hash of workspace, source
// and its config fingerprint (credential context included), never the session id. The local twin
// keeps nothing: each replica's own pooled connection holds its session, as before.
import { createHash } from 'node:crypto';
import type { McpSourceConfig } from '../config/index.js';

export interface SharedSession {
  readonly sessionId: string;
  readonly protocolVersion: string;
  /** The server's capabilities from its initialize result (a resumed client never sees them). */
  readonly capabilities: Record<string, unknown>;
}

export interface SessionStore {
  get(key: string): Promise<SharedSession | undefined>;
  put(key: string, session: SharedSession): Promise<void>;
  /** Forgets the stored session if it is still `sessionId` (the upstream answered 404 to it). */
  forget(key: string, sessionId: string): Promise<void>;
  /** Runs `work` for `key` on one replica at a time (the others wait ≤ waitMs, then run it). */
  exclusive(key: string, waitMs: number, work: () => Promise<void>): Promise<void>;
}

export function sessionKey(workspace: string, source: McpSourceConfig): string {
  return createHash('sha256')
    .update(`${workspace}\0${source.name}\0${JSON.stringify(source)}`)
    .digest('hex')
    .slice(0, 32);
}

export class LocalSessionStore implements SessionStore {
  get(): Promise<SharedSession | undefined> {
    return Promise.resolve(undefined);
  }
  put(): Promise<void> {
    return Promise.resolve();
  }
  forget(): Promise<void> {
    return Promise.resolve();
  }
  exclusive(_key: string, _waitMs: number, work: () => Promise<void>): Promise<void> {
    return work();
  }
}
