// The embeddings part of a workspace's plan (issue 22): Workspace spec.embeddings becomes the rendered
// workspace's `embeddings`, checked with the gateway's own EmbeddingsSchema and the tenant reach
// policy, its API key copied into the workspace's credentials Secret. The privacy rule: a spec that
// cannot be used renders `false`, never nothing — nothing would let the gateway-wide provider embed
// this tenant's text, at an endpoint the tenant did not choose. The workspace keeps serving
// (lexically) and its Ready message says why.
import { EmbeddingsSchema, formatPath, type SecretRef } from '../../../gateway/config/index.js';
import { invalidSpec } from './invalid-spec.js';
import type { ReachCheck } from './reach-check.js';
import type { SecretKeyRef, WorkspaceEmbeddingsView } from './resource-views.js';
import type { ReadyCondition } from './ready-condition.js';

export interface EmbeddingsPlan {
  /** The rendered workspace's `embeddings`: the provider settings, or false for none. */
  readonly render: Readonly<Record<string, unknown>> | false;
  /** ready: false when the tenant's spec could not be used (and `render` is false because of it). */
  readonly condition: ReadyCondition;
}

/** Where the API key goes in the credentials Secret: `cred.workspace.embeddings.apiKey.<hash>`. */
export const EMBEDDINGS_CREDENTIAL = { source: 'workspace', field: 'embeddings.apiKey' } as const;

/** undefined when the Workspace has no spec.embeddings (the gateway-wide setting applies). */
export function planEmbeddings(
  spec: WorkspaceEmbeddingsView | undefined,
  makeRef: (ref: SecretKeyRef) => SecretRef | ReadyCondition,
  reach: ReachCheck | undefined,
): EmbeddingsPlan | undefined {
  if (spec === undefined) return undefined;
  const { disabled, apiKey, ...settings } = spec;
  if (disabled === true)
    return {
      render: false,
      condition: {
        ready: true,
        reason: 'EmbeddingsDisabled',
        message:
          Object.keys(settings).length === 0 && apiKey === undefined
            ? 'spec.embeddings.disabled: lexical search only'
            : 'spec.embeddings.disabled: lexical search only; the other spec.embeddings fields are ignored',
      },
    };
  // Checked before the Secret is read, so a spec that is not used copies no credential.
  const parsed = EmbeddingsSchema.safeParse(settings);
  if (!parsed.success) return notUsed(invalidSpec(parsed.error.issues, fieldOf));
  const refused = reach?.url('spec.embeddings.baseUrl', parsed.data.baseUrl);
  if (refused !== undefined) return notUsed(refused);
  if (apiKey === undefined) return { render: settings, condition: USED };
  const secret = makeRef(apiKey.secretKeyRef);
  if ('ready' in secret) return notUsed(secret);
  return { render: { ...settings, apiKey: secret }, condition: USED };
}

const USED: ReadyCondition = { ready: true, reason: 'Rendered', message: 'spec.embeddings is served' };

function fieldOf(path: readonly PropertyKey[]): string {
  return path.length === 0 ? 'spec.embeddings' : `spec.embeddings.${formatPath(path)}`;
}

function notUsed(problem: ReadyCondition): EmbeddingsPlan {
  return { render: false, condition: { ...problem, ready: false } };
}
