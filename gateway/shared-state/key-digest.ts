// Redis key names made from config or caller input (issue 28.8, docs/redis.md): a name carries an
// opaque digest of its material, never the material itself, so reading the key space (SCAN, a
// slow log, a key-space notification) reveals no workspace, key id, upstream URL, command or env.
// Unkeyed SHA-256, so names stay stable across replicas and encryption key rotations; the material
// hashed is config (or a session id), which Redis never holds in clear anyway.
import { hash } from 'node:crypto';

/** 32 base64url characters (192 bits): no `:`, `{`, `}` or glob characters, so a digest can sit
 * between separators, inside a Cluster hash tag and in a SCAN pattern as it is. */
export function keyDigest(material: string): string {
  return hash('sha256', `agw-redis-name\0${material}`, 'base64url').slice(0, 32);
}
