// The gateway config contract (DESIGN §5, D10): one strict zod schema shared by the embedded YAML
// file and the operator's output. Parsed once, strictly; defaults sit next to their fields. Each
// section is described in a file named for its noun (workspace-schema.ts, server-schema.ts, …);
// this file composes them and holds the rules that span workspaces (unique names and key ids).
import { z } from 'zod';
import { KnowledgeSchema } from './knowledge-schema.js';
import { reportDuplicates } from './name-schema.js';
import { checkOAuth, OAuthSchema } from './oauth-schema.js';
import {
  INBOUND_TIMEOUT_DEFAULTS,
  MULTI_ROUND_DEFAULTS,
  ServerSchema,
  SUBSCRIPTION_DEFAULTS,
  TASK_DEFAULTS,
} from './server-schema.js';
import { SharedStateSchema } from './shared-state-schema.js';
import { TELEMETRY_DEFAULTS, TelemetrySchema } from './telemetry-schema.js';
import { TenantPolicySchema } from './tenant-policy-schema.js';
import { USER_CONNECTIONS_SQLITE_DEFAULT, UserConnectionsSchema } from './user-connections-schema.js';
import { WorkspaceSchema } from './workspace-schema.js';
import { checkUserCredentials } from './upstream-credential-schema.js';

export const GatewayConfigSchema = z
  .strictObject({
    version: z.literal(1, { error: 'must be 1 (the only config version so far)' }),
    server: ServerSchema.default({
      host: '127.0.0.1',
      port: 8080,
      bodyLimitBytes: 1024 * 1024,
      allowedOrigins: [],
      allowedHosts: [],
      shutdownGraceMs: 10_000,
      drainDelayMs: 0,
      multiRound: MULTI_ROUND_DEFAULTS,
      subscriptions: SUBSCRIPTION_DEFAULTS,
      tasks: TASK_DEFAULTS,
      timeouts: INBOUND_TIMEOUT_DEFAULTS,
      console: { enabled: false },
    }),
    workspaces: z.array(WorkspaceSchema).default([]),
    knowledge: KnowledgeSchema.default({ sqlitePath: ':memory:', usageHints: false }),
    sharedState: SharedStateSchema.default({}),
    /** Users' upstream connections (issue 42); see user-connections-schema.ts. */
    userConnections: UserConnectionsSchema.default({ sqlitePath: USER_CONNECTIONS_SQLITE_DEFAULT }),
    /** The audit trail (issue 29, docs/audit.md); see telemetry-schema.ts. */
    telemetry: TelemetrySchema.default(TELEMETRY_DEFAULTS),
    /** What tenant resources may reach (issue 20); see tenant-policy-schema.ts. */
    policy: TenantPolicySchema.optional(),
    /** The gateway as an OAuth resource server (issue 29); absent: API keys only. */
    oauth: OAuthSchema.optional(),
  })
  .superRefine((config, ctx) => {
    checkOAuth(config, ctx);
    checkUserCredentials(config, ctx);
    reportDuplicates(
      config.workspaces.map((w) => w.name),
      ['workspaces'],
      'name',
      'workspace name',
      ctx,
    );
    const keyIds = config.workspaces.flatMap((w, wi) =>
      w.keys.map((k, ki) => ({ id: k.id, path: ['workspaces', wi, 'keys', ki, 'id'] })),
    );
    const seen = new Set<string>();
    for (const key of keyIds) {
      if (seen.has(key.id))
        ctx.addIssue({ code: 'custom', path: key.path, message: `duplicate key id ${key.id}` });
      seen.add(key.id);
    }
  });

export type GatewayConfig = z.infer<typeof GatewayConfigSchema>;
export type ServerConfig = GatewayConfig['server'];
