// What the consent flow hands out and gets back (issue 42), each sealed (AES-256-GCM under the
// connection keys, a purpose of its own as associated data) so it can be neither read nor forged nor
// used for another purpose, and each short-lived:
// - a ticket: the elicitation URL's `/connect?ticket=<ticket>`, naming workspace, principal and source;
// - a retry state: the `requestState` of a 2026 `input_required` answer, bound to the same and to the
//   tool called;
// - an OAuth `state`: bound to workspace, principal, source, the authorization server it was sent to
//   (the mix-up defence), the PKCE verifier (which so never sits in a store) and a digest of the
//   browser's binding cookie; single-use through the store (consumeOnce on its id).
import { createHash, randomBytes } from 'node:crypto';
import type { ValueCipher } from '../shared-state/value-cipher.js';

export const CONSENT_TTL_MS = 10 * 60 * 1000;
const STATE_PREFIX = 'agwc1.';

export interface ConsentTarget {
  readonly workspace: string;
  readonly principal: string;
  readonly source: string;
}

export interface OAuthState extends ConsentTarget {
  readonly issuer: string;
  readonly verifier: string;
  /** SHA-256 (base64url) of the browser's binding cookie. */
  readonly browser: string;
  readonly id: string;
  readonly exp: number;
}

type Purpose = 'ticket' | 'retry' | 'state';

export function browserDigest(cookie: string): string {
  return createHash('sha256').update(`agw-consent-browser\0${cookie}`).digest('base64url');
}

export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url');
}

function isTarget(value: Record<string, unknown>): boolean {
  return (
    typeof value['workspace'] === 'string' &&
    typeof value['principal'] === 'string' &&
    typeof value['source'] === 'string' &&
    typeof value['exp'] === 'number'
  );
}

export class ConsentSeal {
  constructor(
    private readonly cipher: ValueCipher,
    private readonly now: () => number = Date.now,
  ) {}

  ticket(target: ConsentTarget): string {
    return this.seal('ticket', { ...pick(target), exp: this.now() + CONSENT_TTL_MS });
  }

  openTicket(value: string): ConsentTarget | undefined {
    const opened = this.open('ticket', value);
    return opened === undefined ? undefined : pick(opened as unknown as ConsentTarget);
  }

  /** The `requestState` of an input_required answer for `tool`. */
  retryState(target: ConsentTarget, tool: string): string {
    return `${STATE_PREFIX}${this.seal('retry', { ...pick(target), tool, exp: this.now() + CONSENT_TTL_MS })}`;
  }

  static isRetryState(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(STATE_PREFIX);
  }

  /** True when `value` is a live retry state of exactly this target and tool. */
  retryMatches(value: string, target: ConsentTarget, tool: string): boolean {
    if (!ConsentSeal.isRetryState(value)) return false;
    const opened = this.open('retry', value.slice(STATE_PREFIX.length));
    return (
      opened !== undefined &&
      opened['workspace'] === target.workspace &&
      opened['principal'] === target.principal &&
      opened['source'] === target.source &&
      opened['tool'] === tool
    );
  }

  state(target: ConsentTarget, issuer: string, verifier: string, browser: string): OAuthState {
    const state: OAuthState = {
      ...pick(target),
      issuer,
      verifier,
      browser,
      id: randomToken(16),
      exp: this.now() + CONSENT_TTL_MS,
    };
    return state;
  }

  sealState(state: OAuthState): string {
    return this.seal('state', { ...state });
  }

  openState(value: string): OAuthState | undefined {
    const opened = this.open('state', value);
    if (opened === undefined) return undefined;
    const { issuer, verifier, browser, id } = opened;
    if (
      typeof issuer !== 'string' ||
      typeof verifier !== 'string' ||
      typeof browser !== 'string' ||
      typeof id !== 'string'
    )
      return undefined;
    return {
      ...pick(opened as unknown as ConsentTarget),
      issuer,
      verifier,
      browser,
      id,
      exp: opened['exp'] as number,
    };
  }

  private seal(purpose: Purpose, payload: Record<string, unknown>): string {
    return this.cipher.encrypt(JSON.stringify(payload), `agw-consent-${purpose}`);
  }

  /** The payload, when it opens under this purpose, has a target and has not expired. */
  private open(purpose: Purpose, value: string): Record<string, unknown> | undefined {
    if (value.length > 8192) return undefined;
    const opened = this.cipher.decrypt(value, `agw-consent-${purpose}`);
    if (opened === undefined) return undefined;
    try {
      const payload = JSON.parse(opened.plain) as unknown;
      if (typeof payload !== 'object' || payload === null) return undefined;
      const record = payload as Record<string, unknown>;
      return isTarget(record) && (record['exp'] as number) > this.now() ? record : undefined;
    } catch {
      return undefined;
    }
  }
}

function pick(target: ConsentTarget): ConsentTarget {
  return { workspace: target.workspace, principal: target.principal, source: target.source };
}
