// Secret values at rest in Redis (issue 28.8, docs/redis.md): AES-256-GCM under keys derived from
// the Secret values in `sharedState.encryption.keys`. The first key encrypts, every key decrypts,
// so a key is rotated without losing what the others wrote. A value names its key by a short id
// (`agwe1.<key id>.<iv|ciphertext|tag>`) and is bound to where it lives (the Redis key or channel,
// as associated data): moved elsewhere, it does not open. The requestState seal keys derive from
// the same Secrets (HKDF, another purpose), so no seal key is ever stored anywhere.
import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto';

const FORMAT = 'agwe1';
const SALT = 'agent-gateway shared-state v1';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Shortest Secret value accepted (e.g. `openssl rand -base64 32` gives 44). */
export const MIN_SECRET_CHARS = 32;

export class EncryptionKeyError extends Error {
  constructor(problem: string, field = 'sharedState.encryption.keys') {
    super(`${field}: ${problem}`);
    this.name = 'EncryptionKeyError';
  }
}

interface CipherKey {
  readonly id: string;
  readonly key: Buffer;
  readonly secret: Buffer;
}

function derive(secret: Buffer, purpose: string, bytes: number): Buffer {
  return Buffer.from(hkdfSync('sha256', secret, SALT, purpose, bytes));
}

export interface Opened {
  readonly plain: string;
  /** Sealed under a key other than the first: rewrite it before that key is dropped. */
  readonly stale: boolean;
}

export class ValueCipher {
  private readonly keys: readonly CipherKey[];
  private readonly byId = new Map<string, CipherKey>();

  /** `secrets`: the resolved Secret values, the encrypting one first. Never echoed in errors. */
  constructor(
    secrets: readonly string[],
    /** The config field the keys come from, named in errors. */
    field?: string,
  ) {
    if (secrets.length === 0) throw new EncryptionKeyError('at least one key is required', field);
    this.keys = secrets.map((text, index) => {
      if (text.length < MIN_SECRET_CHARS)
        throw new EncryptionKeyError(`key ${index} is shorter than ${MIN_SECRET_CHARS} characters`, field);
      const secret = Buffer.from(text, 'utf8');
      const id = derive(secret, 'key id', 6).toString('base64url');
      if (this.byId.has(id)) throw new EncryptionKeyError(`key ${index} repeats an earlier key`, field);
      const key = { id, key: derive(secret, 'aes-256-gcm values', 32), secret };
      this.byId.set(id, key);
      return key;
    });
  }

  /** The id of the encrypting key (logged at start; it reveals nothing of the key). */
  get primaryId(): string {
    return (this.keys[0] as CipherKey).id;
  }

  /** More than one key is configured: a rotation is under way. */
  get rotating(): boolean {
    return this.keys.length > 1;
  }

  encrypt(plain: string, context: string): string {
    const { id, key } = this.keys[0] as CipherKey;
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', key, iv);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${FORMAT}.${id}.${body.toString('base64url')}`;
  }

  /** The plaintext, or undefined when no configured key opens it (another key, another context,
   * tampered, or not ours at all). */
  decrypt(sealed: string, context: string): Opened | undefined {
    const [format, id, encoded, extra] = sealed.split('.');
    if (format !== FORMAT || id === undefined || encoded === undefined || extra !== undefined)
      return undefined;
    const entry = this.byId.get(id);
    if (entry === undefined) return undefined;
    const body = Buffer.from(encoded, 'base64url');
    if (body.length < IV_BYTES + TAG_BYTES) return undefined;
    try {
      const decipher = createDecipheriv('aes-256-gcm', entry.key, body.subarray(0, IV_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
      const plain = Buffer.concat([
        decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)),
        decipher.final(),
      ]).toString('utf8');
      return { plain, stale: entry !== this.keys[0] };
    } catch {
      return undefined;
    }
  }

  /** Key material for another purpose, one per configured key, the first key's first (the
   * requestState seal keys: the first seals, all open). */
  derive(purpose: string): Buffer[] {
    return this.keys.map((key) => derive(key.secret, purpose, 32));
  }
}
