// API key format (D13): `agw_<id>_<secret><check>`.
//   id     10 base62 characters, random, not secret: finds the stored record without a scan
//   secret 43 base62 characters from a CSPRNG: 256 bits of entropy
//   check  6 base62 characters of CRC32 over everything before it, so typos and truncated keys are
//          rejected before any lookup and secret scanners can verify a candidate offline.
// The prefix `agw_` makes leaked keys easy to find with secret scanners.
import { createHash, randomBytes } from 'node:crypto';
import { crc32 } from 'node:zlib';

export const KEY_PREFIX = 'agw_';
const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const ID_LENGTH = 10;
const SECRET_LENGTH = 43;
const CHECK_LENGTH = 6;
const KEY_PATTERN = new RegExp(
  `^${KEY_PREFIX}([0-9A-Za-z]{${ID_LENGTH}})_([0-9A-Za-z]{${SECRET_LENGTH + CHECK_LENGTH}})$`,
);

export interface ParsedKey {
  readonly id: string;
}

export interface GeneratedKey {
  readonly key: string;
  readonly id: string;
  /** `sha256:<hex>`, the only form that is ever stored. */
  readonly hash: string;
}

/** Uniform base62 characters by rejection sampling (no modulo bias). */
function randomBase62(length: number): string {
  let out = '';
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248 && out.length < length) out += BASE62[byte % 62];
    }
  }
  return out;
}

function base62Fixed(value: number, width: number): string {
  let out = '';
  let rest = value;
  for (let i = 0; i < width; i += 1) {
    out = BASE62[rest % 62] + out;
    rest = Math.floor(rest / 62);
  }
  return out;
}

function checksum(body: string): string {
  return base62Fixed(crc32(body), CHECK_LENGTH);
}

export function hashKey(key: string): string {
  return `sha256:${createHash('sha256').update(key, 'utf8').digest('hex')}`;
}

export function generateKey(): GeneratedKey {
  const id = randomBase62(ID_LENGTH);
  const body = `${KEY_PREFIX}${id}_${randomBase62(SECRET_LENGTH)}`;
  const key = body + checksum(body);
  return { key, id, hash: hashKey(key) };
}

/** Checks shape and checksum only; says nothing about whether the key exists. */
export function parseKey(candidate: string): ParsedKey | undefined {
  const match = KEY_PATTERN.exec(candidate);
  if (match === null) return undefined;
  const body = candidate.slice(0, candidate.length - CHECK_LENGTH);
  if (checksum(body) !== candidate.slice(-CHECK_LENGTH)) return undefined;
  return { id: match[1] as string };
}

/** What a key looks like in docs and generated client configs: the id, never the secret. */
export function redactedKey(id: string): string {
  return `${KEY_PREFIX}${id}_…`;
}
