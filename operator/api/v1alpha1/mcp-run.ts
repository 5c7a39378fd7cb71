// McpSource spec.run (issue 40, D25): an MCP server the operator runs in the McpSource's own
// namespace as a hardened Deployment behind a Service and a NetworkPolicy, and renders for the
// gateways as a streamable-http source with a bearer token it mints. stdio servers get the bridge
// (/agw/bridge) in front; streamable-http images serve HTTP themselves, the bridge beside them as a
// token-checking proxy. The admin's policy.workloads
// bounds images, replicas, resources and egress; defaults the CRD cannot state conditionally (port,
// path, resources) are the operator's (controllers/plan/workload-plan.ts).
import { z } from 'zod';
import { QUANTITY_PATTERN } from '../../../gateway/config/index.js';
import { SecretKeyRefSchema } from './common.js';
import type { CelRule } from './crd-definition.js';

const quantity = (what: string) =>
  z.string().min(1).max(32).regex(QUANTITY_PATTERN).optional().describe(what);

const CpuMemorySchema = (what: string) =>
  z
    .strictObject({
      cpu: quantity(`CPU ${what} (e.g. 100m, 1).`),
      memory: quantity(`Memory ${what} (e.g. 128Mi, 1Gi).`),
    })
    .describe(`The server container's ${what}.`);

const EnvVarSchema = z
  .strictObject({
    name: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/)
      .describe('Variable name.'),
    value: z.string().max(4096).optional().describe('A literal value (give this or secretKeyRef).'),
    secretKeyRef: SecretKeyRefSchema.optional().describe(
      'A value from a Secret of this namespace, read by the kubelet (give this or value).',
    ),
  })
  .describe('One environment variable of the server.');

const EgressPortSchema = z
  .strictObject({
    port: z.number().int().min(1).max(65_535).describe('Destination port.'),
    protocol: z.enum(['TCP', 'UDP']).default('TCP').describe('TCP (default) or UDP.'),
  })
  .describe('A destination port.');

const EgressRuleSchema = z
  .strictObject({
    cidr: z
      .string()
      .min(2)
      .max(64)
      .describe(
        'Destination addresses as an IPv4 or IPv6 CIDR block (1.2.3.0/24, or /32 for one host). NetworkPolicy matches addresses, not names: give the CIDRs a host name uses.',
      ),
    ports: z.array(EgressPortSchema).min(1).max(16).describe('Destination ports (at least one).'),
  })
  .describe('Traffic the server may open: these ports at these addresses.');

export const McpRunSchema = z
  .strictObject({
    image: z
      .string()
      .min(1)
      .max(512)
      .regex(/^[a-z0-9][a-z0-9._\-/:]*(@sha256:[a-f0-9]{64})?$/)
      .describe(
        'Container image, by tag (registry.example.com/mcp/fetch:1.2) or digest (...@sha256:<64 hex>); the admin policy.workloads.allowedImages must admit it.',
      ),
    transport: z
      .enum(['stdio', 'streamable-http'])
      .describe(
        'How the image speaks MCP: stdio (the operator puts its bridge in front, which serves HTTP and checks the token) or streamable-http (the image serves HTTP on port/path itself; the bridge runs beside it as a proxy sidecar that checks the token).',
      ),
    command: z
      .array(z.string().min(1).max(1024))
      .min(1)
      .max(32)
      .optional()
      .describe(
        'The server command (required for stdio, run by the bridge); for streamable-http, overrides the image entrypoint.',
      ),
    args: z.array(z.string().max(4096)).max(128).optional().describe('Arguments after command.'),
    port: z
      .number()
      .int()
      .min(1024)
      .max(65_535)
      .optional()
      .describe('Port the image serves MCP on (streamable-http only; default 8080).'),
    path: z
      .string()
      .min(1)
      .max(256)
      .regex(/^\/[A-Za-z0-9._~\-/]*$/)
      .optional()
      .describe('Path of the MCP endpoint (streamable-http only; default /mcp).'),
    env: z.array(EnvVarSchema).max(64).optional().describe('Environment of the server.'),
    resources: z
      .strictObject({
        requests: CpuMemorySchema('requests').optional(),
        limits: CpuMemorySchema('limits').optional(),
      })
      .optional()
      .describe(
        'CPU and memory (defaults: requests 50m/64Mi, limits 500m/256Mi; limits are always set, bounded by policy.workloads).',
      ),
    replicas: z
      .number()
      .int()
      .min(1)
      .max(100)
      .optional()
      .describe(
        'Pods (default 1, at most policy.workloads.maxReplicas). With stdio each replica is its own server process: state kept in one is not seen by another.',
      ),
    scaleToZero: z
      .strictObject({
        idleAfterSeconds: z
          .number()
          .int()
          .min(10)
          .max(604_800)
          .describe(
            'Seconds without a call after which the server goes to zero replicas (at least 10; minutes are usual: a wake costs a pod start).',
          ),
        wakeTimeoutSeconds: z
          .number()
          .int()
          .min(5)
          .max(600)
          .optional()
          .describe(
            'How long the call that wakes the server waits for a Ready pod before it fails (default 120).',
          ),
      })
      .optional()
      .describe(
        'Opt-in: run no pod while the server is idle. The next call through a gateway wakes it (the gateway asks the operator, which scales the Deployment) and is answered once a pod is Ready.',
      ),
    permissions: z
      .strictObject({
        egress: z
          .array(EgressRuleSchema)
          .max(32)
          .optional()
          .describe('Where the server may connect besides the cluster DNS (default: nowhere else).'),
        writableVolume: z
          .strictObject({
            mountPath: z
              .string()
              .min(2)
              .max(256)
              .regex(/^\/[A-Za-z0-9._\-/]*$/)
              .describe('Where it is mounted (not /tmp, /agw or /agw-token).'),
            sizeLimit: z
              .string()
              .min(1)
              .max(32)
              .regex(QUANTITY_PATTERN)
              .describe('Its size limit (e.g. 256Mi).'),
          })
          .optional()
          .describe('A writable emptyDir (the root filesystem is read-only; /tmp is always writable).'),
      })
      .optional()
      .describe('What the server may do beyond the hardened default.'),
  })
  .describe(
    'Run the MCP server in this namespace (a hardened Deployment, a Service and a NetworkPolicy owned by this McpSource) instead of naming a url; the admin policy.workloads must allow it.',
  );

export const RUN_RULES: readonly CelRule[] = [
  {
    rule: "self.transport != 'stdio' || has(self.command)",
    message: 'run.command is required when run.transport is stdio',
  },
  {
    rule: "self.transport == 'streamable-http' || (!has(self.port) && !has(self.path))",
    message:
      'run.port and run.path are only used when run.transport is streamable-http (the bridge serves stdio servers)',
  },
];

export const ENV_RULES: readonly CelRule[] = [
  {
    rule: 'has(self.value) != has(self.secretKeyRef)',
    message: 'give exactly one of value and secretKeyRef',
  },
];

export const WRITABLE_VOLUME_RULES: readonly CelRule[] = [
  {
    rule: "!(self.mountPath in ['/', '/tmp', '/agw', '/agw-token']) && !self.mountPath.startsWith('/agw/') && !self.mountPath.startsWith('/agw-token/')",
    message: 'writableVolume.mountPath must not be /, /tmp, /agw or /agw-token',
  },
];

/** spec.run as written (protocol defaults applied by the API server, the rest by the operator). */
export type McpRun = z.input<typeof McpRunSchema>;
