// Bearer authentication (spec §5, D13). Resolves the workspace from the key before anything else.
// The secret is compared as a SHA-256 digest in constant time; an unknown id still costs one
// digest comparison against a dummy so timing does not reveal which ids exist.
import { hash, timingSafeEqual } from 'node:crypto';
import type { GatewayConfig } from '../config/index.js';
import { parseKey } from './api-key-format.js';
import { keyIndexFor } from './key-index.js';
import { principalFor, type Principal } from './principal.js';

/** Why a credential failed. Logged (it carries no key material); never shown beyond "401". */
export type AuthFailureReason = 'missing' | 'not-bearer' | 'malformed' | 'unknown' | 'revoked' | 'expired';

export type AuthOutcome =
  | { readonly ok: true; readonly principal: Principal }
  | { readonly ok: false; readonly reason: AuthFailureReason };

const DUMMY_DIGEST = hash('sha256', 'agent-gateway:no-such-key', 'buffer');
const BEARER = /^Bearer +(\S+) *$/i;

/** `workspace`: only that workspace's keys exist (its own endpoint, /w/<name>/mcp); any other key
 * is `unknown`, checked before revocation and expiry so nothing tells it from a key never issued. */
export function authenticate(
  authorization: string | undefined,
  config: GatewayConfig,
  now: Date,
  workspace?: string,
): AuthOutcome {
  if (authorization === undefined || authorization.trim() === '') return { ok: false, reason: 'missing' };
  const match = BEARER.exec(authorization);
  if (match === null) return { ok: false, reason: 'not-bearer' };
  const presented = match[1] as string;
  const parsed = parseKey(presented);
  if (parsed === undefined) return { ok: false, reason: 'malformed' };

  // One-shot: no Hash object per request (issue 45).
  const digest = hash('sha256', presented, 'buffer');
  const indexed = keyIndexFor(config).get(parsed.id);
  const entry = workspace === undefined || indexed?.workspace.name === workspace ? indexed : undefined;
  const matches = timingSafeEqual(digest, entry?.hash ?? DUMMY_DIGEST) && entry !== undefined;
  if (!matches || entry === undefined) return { ok: false, reason: 'unknown' };
  if (entry.key.revoked) return { ok: false, reason: 'revoked' };
  if (entry.key.expiresAt !== undefined && Date.parse(entry.key.expiresAt) <= now.getTime())
    return { ok: false, reason: 'expired' };
  return { ok: true, principal: principalFor(entry.key, entry.workspace) };
}
