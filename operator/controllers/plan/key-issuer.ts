// Which key an ApiKey resource is served with. Bring-your-own (spec.keyId + spec.keyHash) is used as
// given and no plaintext exists in the cluster. Otherwise the operator issues a key with the same
// format and CSPRNG as `agent-gateway key create`, keeps its plaintext only in the Secret
// `<apikey>-key` next to the ApiKey, and issues a new one whenever spec.rotation changes.
import { generateKey, hashKey, parseKey, type GeneratedKey } from '../../../gateway/auth/index.js';
import type { KeyMaterial } from './plan-input.js';
import type { ReadyCondition } from './ready-condition.js';
import type { ApiKeyView } from './resource-views.js';

export const API_KEY_LABEL = 'agentgateway.dev/apikey';
export const ROTATION_ANNOTATION = 'agentgateway.dev/rotation';
export const KEY_DATA = 'key';

export function keySecretName(apiKey: string): string {
  return `${apiKey}-key`.slice(0, 253);
}

/** What the operator currently finds in the key Secret (decoded), if it exists. */
export interface ExistingKeySecret {
  readonly managed: boolean;
  readonly key: string | undefined;
  readonly rotation: string | undefined;
}

export type KeyDecision =
  | { readonly material: KeyMaterial; readonly secretName: string | undefined; readonly issue?: undefined }
  | {
      readonly material: KeyMaterial;
      readonly secretName: string;
      /** A new key to write into the Secret before it is served. */
      readonly issue: { readonly key: string; readonly rotation: number };
    };

function problem(reason: string, message: string): { problem: ReadyCondition } {
  return { problem: { ready: false, reason, message } };
}

export function decideKey(
  apiKey: ApiKeyView,
  existing: ExistingKeySecret | undefined,
  generate: () => GeneratedKey = generateKey,
): KeyDecision {
  const spec = apiKey.spec;
  if (spec.keyId !== undefined && spec.keyHash !== undefined)
    return { material: { id: spec.keyId, hash: spec.keyHash }, secretName: undefined };
  const secretName = keySecretName(apiKey.metadata.name);
  const rotation = spec.rotation ?? 0;
  if (existing !== undefined && !existing.managed)
    return {
      material: problem(
        'SecretConflict',
        `a Secret named ${secretName} exists and is not managed by the operator; rename the ApiKey or that Secret`,
      ),
      secretName: undefined,
    };
  const current = existing?.key === undefined ? undefined : parseKey(existing.key);
  if (existing?.key !== undefined && current !== undefined && existing.rotation === String(rotation))
    return { material: { id: current.id, hash: hashKey(existing.key) }, secretName };
  const fresh = generate();
  return { material: { id: fresh.id, hash: fresh.hash }, secretName, issue: { key: fresh.key, rotation } };
}
