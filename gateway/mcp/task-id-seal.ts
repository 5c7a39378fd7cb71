// The task ids the gateway hands out (issue 43, SEP-2663 "Security": task ids are unguessable and
// every task request is authorised): the upstream's own task id, sealed (AES-256-GCM) together with
// the workspace, the key (principal) and the source that own it, the tool it runs and an expiry, so
// a client can neither read nor forge nor move it to another key. Nothing is stored: any replica
// that holds the keys opens it. Replicas sharing Redis derive the keys from the shared-state
// encryption Secrets (another HKDF purpose; the first seals, all open); alone, a replica seals with
// a random key of its own. The result is a header-safe token (it travels in `Mcp-Name`).
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

const PREFIX = 'agwt1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
const AAD = Buffer.from('agw-task-id', 'utf8');
/** Longest sealed id opened; anything longer is not ours. */
export const MAX_SEALED_TASK_ID_CHARS = 4096;

export interface TaskOwner {
  readonly workspace: string;
  readonly keyId: string;
}

export interface SealedTask extends TaskOwner {
  /** The source the task runs on. */
  readonly source: string;
  /** `upstream`: the upstream runs it under `upstreamId`; `held`: the upstream answered in full and
   * the gateway holds the result under `slot` (a 2025 client asked for a task, task-ledger). */
  readonly kind: 'upstream' | 'held';
  /** The upstream's task id ('' for a held result). */
  readonly upstreamId: string;
  /** The task's place in the key's task ledger (bounds, held results). */
  readonly slot: string;
  /** The W3C traceparent of the span that created the task ('' when none was recorded): later
   * task requests link to it. */
  readonly link: string;
  /** The tool as the client named it, and its upstream name (the response guardrails' target). */
  readonly tool: string;
  readonly upstreamTool: string;
  /** Expiry, ms since epoch. */
  readonly exp: number;
}

export class TaskIdSeal {
  private readonly keys: readonly Buffer[];

  constructor(keys: readonly Buffer[] = [randomBytes(32)]) {
    if (keys.length === 0) throw new Error('a seal needs at least one key');
    this.keys = [...keys];
  }

  seal(task: SealedTask): string {
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys[0] as Buffer, iv);
    cipher.setAAD(AAD);
    const plain = JSON.stringify([
      task.workspace,
      task.keyId,
      task.source,
      task.kind,
      task.upstreamId,
      task.slot,
      task.link,
      task.tool,
      task.upstreamTool,
      task.exp,
    ]);
    const body = Buffer.concat([iv, cipher.update(plain, 'utf8'), cipher.final(), cipher.getAuthTag()]);
    return `${PREFIX}${body.toString('base64url')}`;
  }

  /** The task, when `value` opens under one of the keys, has not expired and belongs to `owner`;
   * undefined otherwise, whatever the reason (forged, malformed, expired, another key's). */
  open(value: unknown, owner: TaskOwner, now: number): SealedTask | undefined {
    if (typeof value !== 'string' || value.length > MAX_SEALED_TASK_ID_CHARS || !value.startsWith(PREFIX))
      return undefined;
    const body = Buffer.from(value.slice(PREFIX.length), 'base64url');
    if (body.length <= IV_BYTES + TAG_BYTES) return undefined;
    for (const key of this.keys) {
      const plain = decrypt(key, body);
      if (plain === undefined) continue;
      const task = parse(plain);
      if (task === undefined || task.exp <= now) return undefined;
      return task.workspace === owner.workspace && task.keyId === owner.keyId ? task : undefined;
    }
    return undefined;
  }
}

function decrypt(key: Buffer, body: Buffer): string | undefined {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, body.subarray(0, IV_BYTES));
    decipher.setAAD(AAD);
    decipher.setAuthTag(body.subarray(body.length - TAG_BYTES));
    return Buffer.concat([
      decipher.update(body.subarray(IV_BYTES, body.length - TAG_BYTES)),
      decipher.final(),
    ]).toString('utf8');
  } catch {
    return undefined;
  }
}

function parse(plain: string): SealedTask | undefined {
  try {
    const fields = JSON.parse(plain) as unknown;
    if (!Array.isArray(fields) || fields.length !== 10) return undefined;
    const [workspace, keyId, source, kind, upstreamId, slot, link, tool, upstreamTool, exp] =
      fields as unknown[];
    if (
      typeof workspace !== 'string' ||
      typeof keyId !== 'string' ||
      typeof source !== 'string' ||
      (kind !== 'upstream' && kind !== 'held') ||
      typeof upstreamId !== 'string' ||
      typeof slot !== 'string' ||
      typeof link !== 'string' ||
      typeof tool !== 'string' ||
      typeof upstreamTool !== 'string' ||
      typeof exp !== 'number'
    )
      return undefined;
    return { workspace, keyId, source, kind, upstreamId, slot, link, tool, upstreamTool, exp };
  } catch {
    return undefined;
  }
}
