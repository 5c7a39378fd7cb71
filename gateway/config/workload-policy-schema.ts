// The admin's bounds on the MCP servers the operator runs for tenants (McpSource spec.run, D25,
// issue 40): which images, how many replicas, how much CPU and memory, and whether their egress may
// leave the cluster's private ranges. Deny by default: with no allowedImages no McpSource may use
// run at all. Part of the tenant policy (tenant-policy-schema.ts); the operator applies it.
import { z } from 'zod';

/** A Kubernetes quantity in the forms the CRD admits (docs/configuration.md, spec.run.resources). */
export const QUANTITY_PATTERN = /^[0-9]+(\.[0-9]+)?(m|k|M|G|T|Ki|Mi|Gi|Ti)?$/;

export const WorkloadPolicySchema = z
  .strictObject({
    allowedImages: z
      .array(
        z
          .string()
          .min(2)
          .max(255)
          .regex(
            /^[a-z0-9][a-z0-9.:_-]*(\/[a-z0-9._-]+)*\/$/,
            'must be a registry or repository prefix ending in / (e.g. registry.example.com/mcp/); an image without a registry is docker.io/library/<name>',
          ),
      )
      .max(100)
      .default([])
      .describe(
        'Image prefixes an McpSource spec.run.image may start with, each ending in / (registry.example.com/mcp/). Empty: no McpSource may use spec.run (WorkloadsNotAllowed).',
      ),
    requireDigest: z
      .boolean()
      .default(false)
      .describe(
        'Only images pinned by digest (@sha256:...) may run; a tag alone is refused (ImageNotAllowed).',
      ),
    maxReplicas: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(3)
      .describe('Most replicas an McpSource may ask for (ReplicasOverLimit beyond).'),
    maxCpu: z
      .string()
      .max(32)
      .regex(QUANTITY_PATTERN, 'must be a CPU quantity such as 500m or 2')
      .default('1')
      .describe('Highest CPU limit of one server container (ResourcesOverLimit beyond).'),
    maxMemory: z
      .string()
      .max(32)
      .regex(QUANTITY_PATTERN, 'must be a memory quantity such as 512Mi or 1Gi')
      .default('1Gi')
      .describe('Highest memory limit of one server container (ResourcesOverLimit beyond).'),
    externalEgress: z
      .enum(['deny', 'allow'])
      .default('deny')
      .describe(
        'Whether spec.run.permissions.egress may name addresses outside the private ranges (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), i.e. leave the cluster and the company network: deny (EgressNotAllowed) or allow. Every egress CIDR is also decided by policy.network like a URL.',
      ),
  })
  .describe(
    'Bounds on MCP servers the operator runs in tenant namespaces (McpSource spec.run). Absent or with no allowedImages: spec.run is refused.',
  );
export type WorkloadPolicy = z.infer<typeof WorkloadPolicySchema>;

export const DEFAULT_WORKLOAD_POLICY: WorkloadPolicy = Object.freeze(WorkloadPolicySchema.parse({}));
