// Workspace spec.embeddings (issue 22): the workspace's own embeddings provider, replacing the
// gateway-wide knowledge.embeddings, or `disabled: true` for none. The bounds are the config
// contract's (EmbeddingsSchema, which the plan validates with); its defaults are left out of the CRD
// on purpose: the apiserver would write them into every stored Workspace (pinning today's values,
// and turning `{disabled: true}` into an object with more fields), while the gateways apply their
// own when they read the rendered workspace.
import { z } from 'zod';
import { EmbeddingsSchema } from '../../../gateway/config/index.js';
import { SecretKeyRefSchema } from './common.js';
import type { CelRule } from './crd-definition.js';

const fields = EmbeddingsSchema.shape;

/** The config contract's default of a field, for its description. */
function defaultOf(field: { readonly def: { readonly defaultValue: unknown } }): string {
  return String(field.def.defaultValue);
}

export const WorkspaceEmbeddingsSpecSchema = z
  .strictObject({
    disabled: z
      .boolean()
      .optional()
      .describe(
        'true: no embeddings for this workspace (lexical search only), whatever the gateway-wide setting; leave the other fields out.',
      ),
    // The contract's z.url() has no length bound (a CRD string needs one); the plan still checks it
    // with the contract (protocol, no user:password@).
    baseUrl: z
      .string()
      .min(1)
      .max(2048)
      .regex(/^https?:\/\/[^\s]+$/)
      .optional()
      .describe(
        'The OpenAI-compatible API base, e.g. https://api.openai.com/v1 (POST {baseUrl}/embeddings). Its host must be allowed by the admin policy.network; chunk text goes there, so name a model you may send this workspace’s content to.',
      ),
    model: fields.model.optional().describe('The embedding model, e.g. text-embedding-3-small.'),
    dimensions: fields.dimensions.describe(
      'Vector length sent as `dimensions`; every vector returned must have it (unset: the model’s own). Changing it or the model re-embeds every chunk.',
    ),
    apiKey: z
      .strictObject({ secretKeyRef: SecretKeyRefSchema })
      .optional()
      .describe('The API key, sent as Authorization: Bearer <value>, read from a Secret of this namespace.'),
    batchSize: fields.batchSize
      .unwrap()
      .optional()
      .describe(`Texts per request (default ${defaultOf(fields.batchSize)}).`),
    concurrency: fields.concurrency
      .unwrap()
      .optional()
      .describe(`Requests in flight at once (default ${defaultOf(fields.concurrency)}).`),
    requestsPerMinute: fields.requestsPerMinute.describe(
      'The provider’s rate limit, retries included (unset: unlimited).',
    ),
    timeoutMs: fields.timeoutMs
      .unwrap()
      .optional()
      .describe(`Timeout of one request attempt in ms (default ${defaultOf(fields.timeoutMs)}).`),
    maxRetries: fields.maxRetries
      .unwrap()
      .optional()
      .describe(
        `Retries of a request answered 429 or 5xx, timed out or not reached (default ${defaultOf(fields.maxRetries)}).`,
      ),
    cacheMaxEntries: fields.cacheMaxEntries
      .unwrap()
      .optional()
      .describe(
        `Vectors cached in memory for this workspace; 0 turns the cache off (default ${defaultOf(fields.cacheMaxEntries)}).`,
      ),
    queryTimeoutMs: fields.queryTimeoutMs
      .unwrap()
      .optional()
      .describe(
        `Budget in ms of a search’s question embedding, retries included; past it the search answers lexically (default ${defaultOf(fields.queryTimeoutMs)}).`,
      ),
    passTimeoutMs: fields.passTimeoutMs.describe(
      'The longest one embedding pass of a data source may run, in ms; a pass that reaches it stops and resumes by itself where it stopped (unset: no limit; each request still has timeoutMs).',
    ),
  })
  .describe(
    'This workspace’s embeddings provider for hybrid search, replacing the gateway-wide one. If it cannot be used (invalid, its Secret missing, its host refused by the admin policy) the workspace gets none rather than the gateway-wide one, and its Ready message says why.',
  );

/** Every field but `disabled`: what a provider is made of. */
export const EMBEDDINGS_PROVIDER_FIELDS = Object.keys(WorkspaceEmbeddingsSpecSchema.shape).filter(
  (field) => field !== 'disabled',
);

const offRule = 'has(self.disabled) && self.disabled';

export const WORKSPACE_EMBEDDINGS_RULES: readonly CelRule[] = [
  {
    rule: `${offRule} || (has(self.baseUrl) && has(self.model))`,
    message: 'embeddings.baseUrl and embeddings.model are required unless embeddings.disabled is true',
  },
  {
    rule: `!(${offRule}) || !(${EMBEDDINGS_PROVIDER_FIELDS.map((field) => `has(self.${field})`).join(' || ')})`,
    message: 'embeddings.disabled: true turns embeddings off; leave the other embeddings fields out',
  },
];
