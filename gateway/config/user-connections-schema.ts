// Where users' upstream connections live (issue 42, the `userConnections` section): the embedded
// SQLite file or the shared PostgreSQL database, and the keys that seal their tokens at rest.
import { z } from 'zod';
import { SecretRefSchema } from './secret-ref.js';

export const USER_CONNECTIONS_SQLITE_DEFAULT = ':memory:';

export const UserConnectionsSchema = z
  .strictObject({
    sqlitePath: z
      .string()
      .min(1)
      .max(4096)
      .default(USER_CONNECTIONS_SQLITE_DEFAULT)
      .describe(
        "SQLite file holding users' upstream connections (created when missing, readable by its owner only); ':memory:' (the default) forgets them at every restart. Not with postgres.",
      ),
    postgres: z
      .strictObject({
        connectionString: SecretRefSchema.describe(
          'A libpq connection URI (postgresql://user:pass@host/db) as a secret reference; the role needs CREATE on its schema the first time (the tables are created when missing), or read and write on tables that exist.',
        ),
      })
      .optional()
      .describe(
        'PostgreSQL shared by every replica (the cluster shape): connections, single-use consent states and client registrations live there, read at each use, so a revocation holds on every replica at once.',
      ),
    encryption: z
      .strictObject({
        keys: z
          .array(SecretRefSchema)
          .min(1)
          .max(8)
          .describe(
            'Secret references, each to a random value of at least 32 characters. The first key seals and every key opens: rotate by appending a new key, then moving it first, then removing the old one (a rollout each).',
          ),
      })
      .optional()
      .describe("Seals users' refresh and access tokens (AES-256-GCM) before they reach the store."),
  })
  .superRefine((section, ctx) => {
    if (section.postgres !== undefined && section.sqlitePath !== USER_CONNECTIONS_SQLITE_DEFAULT)
      ctx.addIssue({
        code: 'custom',
        path: ['sqlitePath'],
        message:
          'cannot be set together with userConnections.postgres: connections live in one store; remove sqlitePath for the shared PostgreSQL store, or postgres for the embedded SQLite file',
      });
  })
  .describe(
    "Users' connections to upstream MCP servers with a `user` credential (issue 42): where they are stored and how their tokens are sealed.",
  );
export type UserConnectionsConfig = z.infer<typeof UserConnectionsSchema>;
