// The reconcile core (D11): one workspace's custom resources in, the workspace document to render and
// a Ready condition for every resource out. Pure, so nearly all operator behaviour is unit-tested
// without a cluster. A bad resource is left out of the render and says why; the rest of its
// workspace, and every other workspace, keeps serving (D17).
import {
  AccessSchema,
  McpSourceSchema,
  DataSourceSchema,
  formatPath,
  PoliciesSchema,
  ToolDisclosureSchema,
  type SecretRef,
  type ToolDisclosure,
} from '../../../gateway/config/index.js';
import {
  credentialDataKey,
  credentialSecretName,
  MAX_RENDERED_ITEM_BYTES,
  renderedItemBytes,
  type WorkspaceToRender,
} from '../../../gateway/config/kube/index.js';
import type { z } from 'zod';
import { attachCredential } from './credential-plan.js';
import { EMBEDDINGS_CREDENTIAL, planEmbeddings } from './embeddings-plan.js';
import { GUARDRAILS_CREDENTIAL_SOURCE, planGuardrails } from './guardrails-plan.js';
import { planGovernance, type GovernancePlan } from './governance-plan.js';
import { invalidSpec } from './invalid-spec.js';
import { IDENTITY_CREDENTIAL_SOURCE, planIdentity, type IdentityPlan } from './identity-plan.js';
import {
  documentTooLarge,
  planOpenApi,
  refusedAfterRead,
  type OpenApiOutcome,
  type OpenApiPlan,
} from './openapi-plan.js';
import type { PlanInput } from './plan-input.js';
import type { ReadyCondition } from './ready-condition.js';
import type { ApiKeyView, DataSourceView, McpSourceView, SecretKeyRef } from './resource-views.js';
import { planRunSource, type RunPlan } from './workload-source.js';

export interface WorkspacePlan {
  readonly render: WorkspaceToRender;
  readonly apiKeys: ReadonlyMap<string, ReadyCondition>;
  readonly mcpSources: ReadonlyMap<string, ReadyCondition & { readonly toolsHint?: number }>;
  /** The McpSources with transport openapi: their status.openapi and DocumentAccepted (issue 44). */
  readonly openApi: ReadonlyMap<string, OpenApiOutcome>;
  /** The McpSources with spec.run that are rendered, by name: their workloads to write (D25). */
  readonly workloads: ReadonlyMap<string, RunPlan>;
  readonly dataSources: ReadonlyMap<string, ReadyCondition>;
  /** Set when the Workspace has spec.embeddings; ready: false when it could not be used (the
   * workspace is then rendered with `embeddings: false`, never with the gateway-wide provider). */
  readonly embeddings?: ReadyCondition;
  /** Set when the Workspace has spec.identity; condition.ready: false when it could not be used
   * (the workspace is then rendered with no identity section: API keys only). */
  readonly identity?: IdentityPlan;
  /** Set when the Workspace has spec.governance; condition.ready: false when the gateway would
   * refuse it (the workspace is then rendered with a deny-all policy: no tool call is made); its
   * guardrail hooks' problems are noted in the Ready message. */
  readonly governance?: GovernancePlan;
}

const RENDERED: ReadyCondition = { ready: true, reason: 'Rendered', message: 'served by the gateways' };

export function planWorkspace(input: PlanInput): WorkspacePlan {
  const name = input.workspace.metadata.name;
  const credentials = new Map<string, string>();
  const secretRef = (source: string, field: string, ref: SecretKeyRef): SecretRef | ReadyCondition => {
    const read = input.readSecret(ref);
    if ('missing' in read)
      return read.missing === 'secret'
        ? {
            ready: false,
            reason: 'SecretNotFound',
            message: `Secret ${ref.name} (${field}) was not found in this namespace`,
          }
        : {
            ready: false,
            reason: 'SecretKeyNotFound',
            message: `Secret ${ref.name} has no key ${ref.key} (${field})`,
          };
    const dataKey = credentialDataKey(source, field, read.value);
    credentials.set(dataKey, read.value);
    return { kubernetesSecret: { name: credentialSecretName(name), key: dataKey } };
  };

  const mcpStatus = new Map<string, ReadyCondition>();
  const openApiStatus = new Map<string, OpenApiOutcome>();
  const mcpSources: unknown[] = [];
  const workloads = new Map<string, RunPlan>();
  for (const resource of sortByName(input.mcpSources)) {
    if (resource.spec.run !== undefined) {
      const planned = planRunSource(resource, resource.spec.run, input, credentials);
      mcpStatus.set(resource.metadata.name, planned.condition);
      if (planned.render !== undefined) {
        const parsed = McpSourceSchema.safeParse(planned.render.document);
        if (!parsed.success) {
          mcpStatus.set(resource.metadata.name, invalid(parsed.error));
          continue;
        }
        mcpSources.push(planned.render.document);
        workloads.set(resource.metadata.name, planned.render.plan);
      }
      continue;
    }
    // `workload` is the operator's mark (D25): never taken from a tenant's spec.
    const { workspaceRef: _ref, credential, workload: _mark, openapi: _openapi, ...rest } = resource.spec;
    const document: Record<string, unknown> = { ...rest, name: resource.metadata.name };
    let openapi: OpenApiPlan | undefined;
    if (resource.spec.transport === 'openapi') {
      openapi = planOpenApi(
        resource.spec.openapi,
        input.openApiDocuments?.get(resource.metadata.name),
        input.reach,
      );
      openApiStatus.set(resource.metadata.name, openapi.outcome);
      if (openapi.problem !== undefined) {
        mcpStatus.set(resource.metadata.name, openapi.problem);
        continue;
      }
      document['openapi'] = openapi.render;
    }
    const failed = attachCredential(document, credential, {
      at: 'spec.credential',
      makeRef: (field, ref) => secretRef(resource.metadata.name, field, ref),
      reach: input.reach,
    });
    if (failed !== undefined) {
      mcpStatus.set(resource.metadata.name, failed);
      continue;
    }
    const parsed = McpSourceSchema.safeParse(document);
    if (!parsed.success) {
      mcpStatus.set(resource.metadata.name, invalid(parsed.error));
      continue;
    }
    const refused = parsed.data.url === undefined ? undefined : input.reach?.url('spec.url', parsed.data.url);
    if (refused !== undefined) {
      mcpStatus.set(resource.metadata.name, refused);
      continue;
    }
    // A document that does not fit one rendered part fails alone, not the whole workspace.
    const bytes = openapi === undefined ? 0 : renderedItemBytes('mcpSources', document);
    if (openapi !== undefined && bytes > MAX_RENDERED_ITEM_BYTES) {
      const tooLarge = documentTooLarge(bytes);
      openApiStatus.set(resource.metadata.name, refusedAfterRead(openapi, tooLarge).outcome);
      mcpStatus.set(resource.metadata.name, tooLarge);
      continue;
    }
    mcpSources.push(document);
    mcpStatus.set(resource.metadata.name, RENDERED);
  }

  const dataStatus = new Map<string, ReadyCondition>();
  const dataSources: unknown[] = [];
  const mcpNames = new Set(
    [...mcpStatus].filter(([, condition]) => condition.ready).map(([sourceName]) => sourceName),
  );
  for (const resource of sortByName(input.dataSources)) {
    const condition = planDataSource(resource, mcpNames, input.mcpSources, secretRef, input);
    if ('ready' in condition) {
      dataStatus.set(resource.metadata.name, condition);
      continue;
    }
    dataSources.push(condition.document);
    dataStatus.set(resource.metadata.name, RENDERED);
  }

  const keyStatus = new Map<string, ReadyCondition>();
  const keys: unknown[] = [];
  const now = Date.now();
  for (const resource of sortByName(input.apiKeys)) {
    const material = input.keyMaterial.get(resource.metadata.name);
    if (material === undefined) {
      keyStatus.set(resource.metadata.name, {
        ready: false,
        reason: 'KeyPending',
        message: 'the key is being issued',
      });
      continue;
    }
    if ('problem' in material) {
      keyStatus.set(resource.metadata.name, material.problem);
      continue;
    }
    const spec = resource.spec;
    // A key whose rules the gateway would refuse is not served at all (fail closed), like a key
    // still pending: never served without its rules.
    const policies = spec.policies === undefined ? undefined : PoliciesSchema.safeParse(spec.policies);
    if (policies !== undefined && !policies.success) {
      keyStatus.set(
        resource.metadata.name,
        invalidSpec(policies.error.issues, (path) => formatPath(['spec', 'policies', ...path])),
      );
      continue;
    }
    const access = AccessSchema.safeParse(spec.access ?? 'read');
    keys.push({
      id: material.id,
      hash: material.hash,
      name: spec.displayName ?? `${resource.metadata.namespace}/${resource.metadata.name}`.slice(0, 100),
      access: access.success ? access.data : 'read',
      sources: spec.sources ?? ['*'],
      tools: spec.tools ?? ['*'],
      ...(spec.expiresAt === undefined ? {} : { expiresAt: spec.expiresAt }),
      revoked: spec.revoked ?? false,
      ...(spec.limits === undefined ? {} : { limits: spec.limits }),
      ...disclosure(spec.toolDisclosure),
      ...(spec.policies === undefined ? {} : { policies: spec.policies }),
    });
    keyStatus.set(resource.metadata.name, keyCondition(spec, now));
  }

  const embeddings = planEmbeddings(
    input.workspace.spec.embeddings,
    (ref) => secretRef(EMBEDDINGS_CREDENTIAL.source, EMBEDDINGS_CREDENTIAL.field, ref),
    input.reach,
  );
  const identity = planIdentity(
    input.workspace.spec.identity,
    (field, ref) => secretRef(IDENTITY_CREDENTIAL_SOURCE, field, ref),
    input.reach,
    input.identityPolicy === undefined
      ? undefined
      : { policy: input.identityPolicy, namespace: input.workspace.metadata.namespace },
  );

  const guardrails = planGuardrails(
    name,
    input.workspace.spec.governance,
    (field, ref) => secretRef(GUARDRAILS_CREDENTIAL_SOURCE, field, ref),
    input.reach,
  );
  const checked = planGovernance(guardrails?.render);
  const governance = checked === undefined ? undefined : { ...checked, problems: guardrails?.problems ?? [] };

  return {
    render: {
      name,
      namespace: input.workspace.metadata.namespace,
      ...(input.workspace.spec.displayName === undefined
        ? {}
        : { displayName: input.workspace.spec.displayName }),
      ...(input.workspace.spec.limits === undefined ? {} : { limits: input.workspace.spec.limits }),
      ...disclosure(input.workspace.spec.toolDisclosure),
      ...(embeddings === undefined ? {} : { embeddings: embeddings.render }),
      ...(identity?.render === undefined ? {} : { identity: identity.render }),
      ...(governance === undefined ? {} : { governance: governance.render }),
      mcpSources,
      dataSources,
      keys,
      credentials,
    },
    apiKeys: keyStatus,
    mcpSources: mcpStatus,
    openApi: openApiStatus,
    workloads,
    dataSources: dataStatus,
    ...(embeddings === undefined ? {} : { embeddings: embeddings.condition }),
    ...(identity === undefined ? {} : { identity }),
    ...(governance === undefined ? {} : { governance }),
  };
}

/** A spec's toolDisclosure as rendered: the API server admits only the enum, and anything else is
 * left out (the gateway's default, `all`) rather than failing the workspace. */
function disclosure(value: string | undefined): { toolDisclosure?: ToolDisclosure } {
  const parsed = ToolDisclosureSchema.safeParse(value);
  return parsed.success ? { toolDisclosure: parsed.data } : {};
}

function keyCondition(spec: ApiKeyView['spec'], now: number): ReadyCondition {
  if (spec.revoked === true)
    return { ready: true, reason: 'Revoked', message: 'the key is revoked: gateways refuse it' };
  if (spec.expiresAt !== undefined && Date.parse(spec.expiresAt) <= now)
    return {
      ready: true,
      reason: 'Expired',
      message: `the key expired at ${spec.expiresAt}: gateways refuse it`,
    };
  return { ready: true, reason: 'KeyIssued', message: 'the key is served by the gateways' };
}

function planDataSource(
  resource: DataSourceView,
  readyMcpNames: ReadonlySet<string>,
  allMcp: readonly McpSourceView[],
  secretRef: (source: string, field: string, ref: SecretKeyRef) => SecretRef | ReadyCondition,
  input: Pick<PlanInput, 'reach' | 'readSecret'>,
): ReadyCondition | { readonly document: Record<string, unknown> } {
  const sourceName = resource.metadata.name;
  const spec = resource.spec;
  if (allMcp.some((m) => m.metadata.name === sourceName))
    return {
      ready: false,
      reason: 'NameConflict',
      message: `an McpSource named ${sourceName} is in the same workspace; source names are shared`,
    };
  const base = {
    name: sourceName,
    type: spec.type,
    ...(spec.description === undefined ? {} : { description: spec.description }),
  };
  let document: Record<string, unknown>;
  switch (spec.type) {
    case 'files': {
      document = { ...base, ...(spec.files ?? {}) };
      const path = spec.files?.path;
      const refused = path === undefined ? undefined : input.reach?.path('spec.files.path', path);
      if (refused !== undefined) return refused;
      break;
    }
    case 'http': {
      const { credential, ...rest } = spec.http ?? {};
      document = { ...base, ...rest };
      const url = spec.http?.url;
      const refused = url === undefined ? undefined : input.reach?.url('spec.http.url', url);
      if (refused !== undefined) return refused;
      const failed = attachCredential(document, credential, {
        at: 'spec.http.credential',
        makeRef: (field, ref) => secretRef(sourceName, field, ref),
        reach: input.reach,
      });
      if (failed !== undefined) return failed;
      break;
    }
    case 'mcp-resources': {
      const { mcpSourceRef, ...rest } = spec.mcpResources ?? {};
      const target = mcpSourceRef?.name;
      if (target === undefined || !readyMcpNames.has(target))
        return {
          ready: false,
          reason: 'McpSourceNotFound',
          message: `spec.mcpResources.mcpSourceRef: no ready McpSource ${target ?? '(unset)'} in this workspace`,
        };
      document = { ...base, ...rest, mcpSource: target };
      break;
    }
    case 'postgres': {
      const { connectionString, ...rest } = spec.postgres ?? {};
      if (connectionString === undefined)
        return {
          ready: false,
          reason: 'InvalidSpec',
          message: 'spec.postgres.connectionString: is required',
        };
      const ref = secretRef(sourceName, 'connectionString', connectionString.secretKeyRef);
      if ('ready' in ref) return ref;
      const value = input.readSecret(connectionString.secretKeyRef);
      const refused =
        'value' in value
          ? input.reach?.connectionString('spec.postgres.connectionString', value.value)
          : undefined;
      if (refused !== undefined) return refused;
      document = { ...base, ...rest, connectionString: ref };
      break;
    }
    default:
      return { ready: false, reason: 'InvalidSpec', message: `spec.type: unknown type ${spec.type}` };
  }
  const parsed = DataSourceSchema.safeParse(document);
  if (!parsed.success) return invalid(parsed.error);
  return { document };
}

function invalid(error: z.ZodError): ReadyCondition {
  return invalidSpec(error.issues, (path) => `spec.${formatPath(path)}`);
}

function sortByName<T extends { readonly metadata: { readonly name: string } }>(items: readonly T[]): T[] {
  return [...items].sort((a, b) => a.metadata.name.localeCompare(b.metadata.name));
}
