// State shared by all gateway replicas (issue 10, the `sharedState` section): the Redis connection and
// the encryption of what Redis holds.
import { z } from 'zod';
import { SecretRefSchema } from './secret-ref.js';

/** Encryption of secret values at rest in Redis (issue 28.8, docs/redis.md). */
export const SharedStateEncryptionSchema = z
  .strictObject({
    keys: z
      .array(SecretRefSchema)
      .min(1)
      .max(8)
      .describe(
        'Secret references, each to a random value of at least 32 characters. The first key encrypts and every key decrypts: rotate by appending a new key, then moving it first, then removing the old one (a rollout each, docs/redis.md).',
      ),
  })
  .describe(
    'Encrypts upstream sessions, cached lists and replica messages in Redis and derives the requestState seal keys; required with sharedState.redis.',
  );

/** State shared by all gateway replicas (issue 10): without it every replica keeps its own. */
export const SharedStateSchema = z
  .strictObject({
    redis: z
      .strictObject({
        /** As a secret reference: redis://[user:password@]host:port[/db] (rediss:// for TLS),
         * redis-sentinel://[user:password@]host:port[,host:port…]/<master>[/<db>], or
         * redis-cluster://[user:password@]host:port[,host:port…]. */
        url: SecretRefSchema,
        /** TLS to the Redis nodes (also implied by rediss://): the CA bundle (PEM, as a secret
         * reference) when it is not a system CA, and the certificate name when it is not the host. */
        tls: z
          .strictObject({
            ca: SecretRefSchema.optional(),
            servername: z.string().min(1).max(253).optional(),
          })
          .optional(),
        keyPrefix: z
          .string()
          .max(64)
          .regex(/^[A-Za-z0-9:_.-]*$/)
          .default('agw:'),
        connectTimeoutMs: z.number().int().min(100).max(60_000).default(2000),
        /** A shared-state command slower than this falls back to local state for that request. */
        commandTimeoutMs: z.number().int().min(5).max(10_000).default(50),
      })
      .optional(),
    encryption: SharedStateEncryptionSchema.optional(),
  })
  .superRefine((shared, ctx) => {
    // Secure by default (issue 28.8): Redis never holds an upstream session or a seal key in clear.
    if (shared.redis !== undefined && shared.encryption === undefined)
      ctx.addIssue({
        code: 'custom',
        path: ['encryption'],
        message:
          'is required with sharedState.redis: set encryption.keys to a secret reference holding a random value of at least 32 characters (see docs/redis.md)',
      });
  });
export type SharedStateConfig = z.infer<typeof SharedStateSchema>;
