// Integrity-protected `requestState` the gateway mints itself (spec MRTR security, duty 13): an HMAC
// over the payload, which binds the workspace, the API key (or identity), the tool, a digest of the
// arguments and an expiry.
// The payload is readable (base64url JSON) but cannot be forged or moved to another key or call.
// Replicas sharing Redis seal with keys derived from the shared-state encryption Secret (issue
// 28.8), so every replica has them from the start and none is ever stored in Redis; with several
// configured keys (a rotation) the first seals and every one opens. Alone, a replica seals with a
// random key of its own.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'agwb1.';

export interface SealedState {
  /** The bridged call this state continues. */
  readonly call: string;
  /** The input request key the client must answer. */
  readonly input: string;
  /** The workspace of the call: a state is honoured only there, whatever the key id (D24). */
  readonly workspace: string;
  readonly keyId: string;
  readonly tool: string;
  readonly argsDigest: string;
  /** The replica holding the call open (absent from states minted before replicas shared them). */
  readonly owner?: string;
  /** Expiry, ms since epoch. */
  readonly exp: number;
}

export function argumentsDigest(args: unknown): string {
  return createHash('sha256')
    .update(JSON.stringify(args ?? {}))
    .digest('base64url')
    .slice(0, 22);
}

export class RequestStateSeal {
  /** The first seals, all of them open. */
  private readonly keys: readonly Buffer[];

  constructor(keys: readonly Buffer[] = [randomBytes(32)]) {
    if (keys.length === 0) throw new Error('a seal needs at least one key');
    this.keys = [...keys];
  }

  static isOurs(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(PREFIX);
  }

  seal(state: SealedState): string {
    const body = Buffer.from(JSON.stringify(state)).toString('base64url');
    return `${PREFIX}${body}.${this.mac(body, this.keys[0] as Buffer)}`;
  }

  /** The verified payload, or undefined when the value is forged, malformed or expired. */
  open(value: string, now: number): SealedState | undefined {
    if (!RequestStateSeal.isOurs(value)) return undefined;
    const [body, mac] = value.slice(PREFIX.length).split('.');
    if (body === undefined || mac === undefined) return undefined;
    const given = Buffer.from(mac);
    const valid = this.keys.some((key) => {
      const expected = Buffer.from(this.mac(body, key));
      return expected.length === given.length && timingSafeEqual(expected, given);
    });
    if (!valid) return undefined;
    try {
      const state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SealedState;
      return typeof state.exp === 'number' && state.exp > now ? state : undefined;
    } catch {
      return undefined;
    }
  }

  private mac(body: string, key: Buffer): string {
    return createHmac('sha256', key).update(body).digest('base64url');
  }
}
