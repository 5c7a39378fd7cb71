// The caller's verified OAuth access token, handed to the upstream layer for RFC 8693 token
// exchange only (issue 29, D22; docs/decisions.md "Handing the caller's token to token exchange").
// It rides the principal under a symbol, non-enumerable, so JSON, spread copies, pino, audit records
// and util.inspect never see it; the value sits in a sealed holder (a private field; toJSON and
// inspect print a placeholder) that forgets it when the request's response closes. Attached only
// when the caller's workspace has a token-exchange source, so other requests never carry it.
import { inspect } from 'node:util';
import type { WorkspaceConfig } from '../config/index.js';
import type { Principal } from './principal.js';

/** A registered symbol, so upstream/upstream-caller.ts reads it structurally without importing
 * auth/ (arrows point one way). Both sides are pinned together by a unit test. */
export const CALLER_TOKEN = Symbol.for('agent-gateway.caller-token');

const PLACEHOLDER = '[caller token]';

/** Holds one token until `forget`; prints as a placeholder however it is serialised. */
export class SealedCallerToken {
  #value: string | undefined;

  constructor(value: string) {
    this.#value = value;
  }

  /** The token, or undefined once its request has ended. Only token exchange calls this. */
  reveal(): string | undefined {
    return this.#value;
  }

  forget(): void {
    this.#value = undefined;
  }

  toJSON(): string {
    return PLACEHOLDER;
  }

  toString(): string {
    return PLACEHOLDER;
  }

  [inspect.custom](): string {
    return PLACEHOLDER;
  }
}

/** Whether any McpSource of the workspace exchanges the caller's token. */
export function exchangesCallerToken(workspace: WorkspaceConfig): boolean {
  return workspace.mcpSources.some((source) => source.credential?.type === 'tokenExchange');
}

/** Attaches `token` to a principal built for this request (never to a shared one). */
export function sealCallerToken(principal: Principal, token: string): Principal {
  if (principal.oidc === undefined || !exchangesCallerToken(principal.workspace)) return principal;
  Object.defineProperty(principal, CALLER_TOKEN, {
    value: new SealedCallerToken(token),
    enumerable: false,
    writable: false,
    configurable: false,
  });
  return principal;
}

function holderOf(principal: Principal | undefined): SealedCallerToken | undefined {
  const holder: unknown = principal === undefined ? undefined : Reflect.get(principal, CALLER_TOKEN);
  return holder instanceof SealedCallerToken ? holder : undefined;
}

/** The request is over: the token is dropped, whatever still refers to the principal. */
export function forgetCallerToken(principal: Principal | undefined): void {
  holderOf(principal)?.forget();
}

/** Whether the principal carries a token still readable (tests and the auth hook). */
export function holdsCallerToken(principal: Principal | undefined): boolean {
  return holderOf(principal)?.reveal() !== undefined;
}
