// The key Secrets next to the ApiKeys (D16): for each ApiKey of a workspace, what its Secret holds
// now (read from the caches), the decision of key-issuer.ts, and the write of a newly issued key,
// owned by its ApiKey and announced with a KeyIssued Event before the key is served. Also the
// delete of the Secret of an ApiKey that is gone.
import { MANAGED_BY_LABEL, MANAGED_BY_VALUE } from '../../gateway/config/kube/index.js';
import type { KubeWriter } from '../kube/kube-writer.js';
import { decoded, type ControllerCaches, type Resource } from './controller-caches.js';
import {
  API_KEY_LABEL,
  decideKey,
  KEY_DATA,
  ROTATION_ANNOTATION,
  type ExistingKeySecret,
} from './plan/key-issuer.js';
import type { KeyMaterial } from './plan/plan-input.js';
import type { ApiKeyView } from './plan/resource-views.js';
import { PLURALS, type StatusReporter } from './status-reporter.js';

/** Per ApiKey name: the key the plan serves, and what its status reports about the Secret. */
export interface WorkspaceKeys {
  readonly material: ReadonlyMap<string, KeyMaterial>;
  readonly secrets: ReadonlyMap<
    string,
    { readonly secretName: string | undefined; readonly rotation: number }
  >;
}

export interface KeySecretsDeps {
  readonly caches: ControllerCaches;
  readonly writer: KubeWriter;
  readonly status: StatusReporter;
}

export class KeySecrets {
  constructor(private readonly deps: KeySecretsDeps) {}

  /** Decides every ApiKey's key, writing the Secret of each key it issues. */
  async issue(namespace: string, apiKeys: readonly Resource<ApiKeyView['spec']>[]): Promise<WorkspaceKeys> {
    const material = new Map<string, KeyMaterial>();
    const secrets = new Map<string, { secretName: string | undefined; rotation: number }>();
    for (const apiKey of apiKeys) {
      const decision = decideKey(apiKey, this.existing(namespace, apiKey.metadata.name));
      if (decision.issue !== undefined) {
        await this.deps.writer.apply({
          kind: 'Secret',
          name: decision.secretName,
          namespace,
          labels: { [MANAGED_BY_LABEL]: MANAGED_BY_VALUE, [API_KEY_LABEL]: apiKey.metadata.name },
          annotations: { [ROTATION_ANNOTATION]: String(decision.issue.rotation) },
          data: { [KEY_DATA]: decision.issue.key },
          ...(apiKey.metadata.uid === undefined
            ? {}
            : {
                ownerReferences: [
                  {
                    apiVersion: 'agentgateway.dev/v1alpha1',
                    kind: 'ApiKey',
                    name: apiKey.metadata.name,
                    uid: apiKey.metadata.uid,
                    controller: true,
                    blockOwnerDeletion: true,
                  },
                ],
              }),
        });
        await this.deps.status.recordEvent(
          PLURALS.apiKey,
          apiKey,
          'Normal',
          'KeyIssued',
          `issued a key into Secret ${decision.secretName} (rotation ${decision.issue.rotation})`,
        );
      }
      material.set(apiKey.metadata.name, decision.material);
      secrets.set(apiKey.metadata.name, {
        secretName: decision.secretName,
        rotation: apiKey.spec.rotation ?? 0,
      });
    }
    return { material, secrets };
  }

  /** Deletes the key Secret of an ApiKey that is gone (only one the operator manages for it). */
  async remove(namespace: string, apiKey: string): Promise<void> {
    const secret = this.deps.caches.secret(namespace, `${apiKey}-key`);
    if (secret?.metadata?.labels?.[API_KEY_LABEL] === apiKey)
      await this.deps.writer.remove('Secret', namespace, `${apiKey}-key`);
  }

  private existing(namespace: string, apiKey: string): ExistingKeySecret | undefined {
    const secret = this.deps.caches.secret(namespace, `${apiKey}-key`);
    return secret === undefined
      ? undefined
      : {
          managed: secret.metadata?.labels?.[API_KEY_LABEL] === apiKey,
          key: decoded(secret, KEY_DATA),
          rotation: secret.metadata?.annotations?.[ROTATION_ANNOTATION],
        };
  }
}
