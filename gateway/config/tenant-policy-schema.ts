// The admin-owned policy on what tenant resources may reach (D19, issue 20): the directories a
// `files` data source may index and the network addresses MCP sources, `http` and `postgres` data
// sources may connect to. It is part of the gateway's own config (the base file with --kubernetes,
// the config file otherwise) and the operator's --policy file; tenants can write neither. Which
// issuers tenants may trust for sign-in is part of it too (identity-policy-schema.ts, D24).
import { BlockList, isIP } from 'node:net';
import { z } from 'zod';
import { IdentityPolicySchema } from './identity-policy-schema.js';
import { DEFAULT_WORKLOAD_POLICY, WorkloadPolicySchema } from './workload-policy-schema.js';

/** `a.b.c.d/n`, `v6::/n` or a bare address (one host). */
export const CidrSchema = z
  .string()
  .min(2)
  .max(64)
  .refine((text) => parseCidr(text) !== undefined, {
    message: 'must be an IPv4 or IPv6 address or CIDR block, e.g. 10.96.0.0/12 or fd00::/8',
  });

/** A DNS name (`mcp.example.com`) or every name under a domain (`*.svc.cluster.local`). */
export const HostPatternSchema = z
  .string()
  .min(1)
  .max(253)
  .regex(
    /^(\*\.)?([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?$/,
    'must be a lower-case DNS name, optionally starting with *. (every name under that domain)',
  );

const AllowSchema = z.strictObject({
  cidrs: z
    .array(CidrSchema)
    .max(1000)
    .default([])
    .describe('Addresses allowed even when denied otherwise (also the built-in ranges: loopback, …).'),
  hosts: z
    .array(HostPatternSchema)
    .max(1000)
    .default([])
    .describe(
      'DNS names allowed even when their address is in deny.cidrs; never through the built-in ranges.',
    ),
});
export type ReachAllow = z.infer<typeof AllowSchema>;

export const NetworkPolicySchema = z
  .strictObject({
    denyCidrs: z
      .array(CidrSchema)
      .max(1000)
      .default([])
      .describe(
        'Denied besides the built-in ranges (loopback, link-local, unspecified, multicast, the gateway’s own addresses, the API server): list the service and pod CIDRs, Redis, the nodes.',
      ),
    defaultAction: z
      .enum(['allow', 'deny'])
      .default('allow')
      .describe('What happens to an address that no rule names: allow (the internet) or deny.'),
    allow: AllowSchema.default({ cidrs: [], hosts: [] }).describe('Exceptions for every tenant.'),
    namespaces: z
      .record(z.string().min(1).max(63), AllowSchema)
      .default({})
      .describe('Exceptions per tenant namespace (embedded file: per workspace name).'),
  })
  .describe(
    'Where MCP sources, http and postgres data sources may connect, decided on the resolved address.',
  );
export type NetworkPolicy = z.infer<typeof NetworkPolicySchema>;

export const FilesPolicySchema = z
  .strictObject({
    allowedRoots: z
      .array(
        z
          .string()
          .min(1)
          .max(4096)
          .regex(/^\//, 'must be an absolute path')
          .refine((path) => !path.split('/').some((part) => part === '..' || part === '.'), {
            message: 'must not contain . or .. components',
          }),
      )
      .max(100)
      .default([])
      .describe(
        'Directories files data sources may index, each with everything below it; {namespace} and {workspace} are replaced per tenant. Empty: no files data sources.',
      ),
  })
  .describe('Which directories files data sources may read.');
export type FilesPolicy = z.infer<typeof FilesPolicySchema>;

export const TenantPolicySchema = z
  .strictObject({
    files: FilesPolicySchema.default({ allowedRoots: [] }),
    network: NetworkPolicySchema.default({
      denyCidrs: [],
      defaultAction: 'allow',
      allow: { cidrs: [], hosts: [] },
      namespaces: {},
    }),
    stdio: z
      .enum(['allow', 'deny'])
      .default('deny')
      .describe('Whether workspaces may run stdio MCP sources (local processes of the gateway).'),
    identity: IdentityPolicySchema.default({ issuers: [] }),
    workloads: WorkloadPolicySchema.default(DEFAULT_WORKLOAD_POLICY),
  })
  .describe(
    'What tenant resources may reach. Absent in the embedded file: no bounds; with --kubernetes and in the operator it always applies (these defaults when absent).',
  );
export type TenantPolicy = z.infer<typeof TenantPolicySchema>;

/** The policy that applies when an admin set none in the Kubernetes shape. */
export const DEFAULT_TENANT_POLICY: TenantPolicy = Object.freeze(TenantPolicySchema.parse({}));

export interface ParsedCidr {
  readonly address: string;
  readonly family: 'ipv4' | 'ipv6';
  readonly prefix: number;
}

export function parseCidr(text: string): ParsedCidr | undefined {
  const [address = '', prefixText, extra] = text.split('/');
  if (extra !== undefined) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const family = version === 4 ? 'ipv4' : 'ipv6';
  const max = version === 4 ? 32 : 128;
  if (prefixText !== undefined && !/^\d{1,3}$/.test(prefixText)) return undefined;
  const prefix = prefixText === undefined ? max : Number(prefixText);
  if (prefix > max) return undefined;
  // BlockList refuses what it cannot hold; checking here keeps the schema and the matcher in step.
  try {
    new BlockList().addSubnet(address, prefix, family);
  } catch {
    return undefined;
  }
  return { address, family, prefix };
}
