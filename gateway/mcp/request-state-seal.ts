// Integrity-protected `requestState` the gateway mints itself (spec MRTR security, duty 13): an HMAC
// over the payload, which binds the API key, the tool, a digest of the arguments and an expiry.
// The payload is readable (base64url JSON) but cannot be forged or moved to another key or call.
import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

const PREFIX = 'agwb1.';

export interface SealedState {
  /** The bridged call this state continues. */
  readonly call: string;
  /** The input request key the client must answer. */
  readonly input: string;
  readonly keyId: string;
  readonly tool: string;
  readonly argsDigest: string;
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
  constructor(private readonly key: Buffer = randomBytes(32)) {}

  static isOurs(value: unknown): value is string {
    return typeof value === 'string' && value.startsWith(PREFIX);
  }

  seal(state: SealedState): string {
    const body = Buffer.from(JSON.stringify(state)).toString('base64url');
    return `${PREFIX}${body}.${this.mac(body)}`;
  }

  /** The verified payload, or undefined when the value is forged, malformed or expired. */
  open(value: string, now: number): SealedState | undefined {
    if (!RequestStateSeal.isOurs(value)) return undefined;
    const [body, mac] = value.slice(PREFIX.length).split('.');
    if (body === undefined || mac === undefined) return undefined;
    const expected = Buffer.from(this.mac(body));
    const given = Buffer.from(mac);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return undefined;
    try {
      const state = JSON.parse(Buffer.from(body, 'base64url').toString('utf8')) as SealedState;
      return typeof state.exp === 'number' && state.exp > now ? state : undefined;
    } catch {
      return undefined;
    }
  }

  private mac(body: string): string {
    return createHmac('sha256', this.key).update(body).digest('base64url');
  }
}
