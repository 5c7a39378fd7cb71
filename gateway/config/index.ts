export { GatewayConfigSchema } from './config-schema.js';
export type { GatewayConfig, ServerConfig } from './config-schema.js';
export { NAME } from './name-schema.js';
export { AccessSchema, TOOL_DISCLOSURES, ToolDisclosureSchema } from './access-schema.js';
export type { Access, ToolDisclosure } from './access-schema.js';
export { LimitsSchema } from './limits-schema.js';
export { GovernanceSchema } from './governance-schema.js';
export type { GovernanceConfig } from './governance-schema.js';
export { TOOL_LIMIT_SCOPES, ToolLimitSchema, ToolLimitsSchema } from './tool-limits-schema.js';
export type { ToolLimitConfig, ToolLimitScope } from './tool-limits-schema.js';
export {
  GUARDED_METHODS,
  GuardrailHookSchema,
  GuardrailsSchema,
  HOOK_FAILURE_MODES,
  HOOK_PHASES,
} from './guardrails-schema.js';
export type {
  GuardedMethod,
  GuardrailHookConfig,
  GuardrailsConfig,
  HookFailureMode,
  HookPhase,
} from './guardrails-schema.js';
export { MAX_POLICIES, PoliciesSchema, PolicySchema } from './policy-schema.js';
export type { PolicyConfig } from './policy-schema.js';
export { checkPolicyExpression, POLICY_BOUNDS, PRINCIPAL_FIELDS, TOOL_FIELDS } from './policy-expression.js';
export type { LimitsConfig } from './limits-schema.js';
export { ApiKeySchema } from './api-key-schema.js';
export type { ApiKeyConfig } from './api-key-schema.js';
export {
  McpSourceSchema,
  McpSourceFieldsSchema,
  TimeoutsSchema,
  BreakerSchema,
  SourceLimitsSchema,
  ToolFilterSchema,
  PrefixPolicySchema,
  PinningSchema,
  ToolOverrideSchema,
  OpenApiIncludeSchema,
  OpenApiLimitsSchema,
} from './mcp-source-schema.js';
export type {
  McpSourceConfig,
  BreakerConfig,
  PrefixPolicy,
  WorkloadMark,
  PinningConfig,
  ToolOverride,
} from './mcp-source-schema.js';
export {
  DataSourceSchema,
  FilesDataSourceSchema,
  HttpDataSourceSchema,
  McpResourcesDataSourceSchema,
  PostgresDataSourceSchema,
  SOURCE_TYPES,
} from './data-source-schema.js';
export type { DataSourceConfig } from './data-source-schema.js';
export { EmbeddingsSchema } from './embeddings-schema.js';
export type { EmbeddingsConfig } from './embeddings-schema.js';
export { WorkspaceSchema } from './workspace-schema.js';
export type { WorkspaceConfig } from './workspace-schema.js';
export { ServerSchema, TASK_DEFAULTS } from './server-schema.js';
export { KnowledgeSchema, AnswererSchema } from './knowledge-schema.js';
export type { AnswererConfig } from './knowledge-schema.js';
export { SharedStateSchema } from './shared-state-schema.js';
export type { SharedStateConfig } from './shared-state-schema.js';
export { UserConnectionsSchema, USER_CONNECTIONS_SQLITE_DEFAULT } from './user-connections-schema.js';
export type { UserConnectionsConfig } from './user-connections-schema.js';
export { parseConfigText, validateConfig, formatProblems, formatPath } from './config-loader.js';
export type { ConfigProblem, ConfigParseResult } from './config-loader.js';
export { MemoryConfigSource, InvalidConfigError, SnapshotHolder } from './config-source.js';
export type { ConfigSource, ConfigSnapshot, ConfigListener } from './config-source.js';
export { configDigest } from './config-digest.js';
export { FileConfigSource } from './file-config-source.js';
export type { FileConfigSourceOptions } from './file-config-source.js';
export {
  SecretRefSchema,
  resolveSecret,
  describeSecretRef,
  processSecretReader,
  SecretUnavailableError,
} from './secret-ref.js';
export type { SecretRef, SecretReader } from './secret-ref.js';
export {
  TenantPolicySchema,
  NetworkPolicySchema,
  FilesPolicySchema,
  CidrSchema,
  HostPatternSchema,
  DEFAULT_TENANT_POLICY,
  parseCidr,
} from './tenant-policy-schema.js';
export type {
  TenantPolicy,
  NetworkPolicy,
  FilesPolicy,
  ReachAllow,
  ParsedCidr,
} from './tenant-policy-schema.js';
export { WorkloadPolicySchema, DEFAULT_WORKLOAD_POLICY, QUANTITY_PATTERN } from './workload-policy-schema.js';
export type { WorkloadPolicy } from './workload-policy-schema.js';
export { IdentityPolicySchema, IssuerPolicySchema } from './identity-policy-schema.js';
export type { IdentityPolicy, IssuerPolicy } from './identity-policy-schema.js';
export { boundIdentity, issuerPolicyFor, workspaceUnderPolicy } from './identity-policy.js';
export type { IdentityBound, IdentityRefusal } from './identity-policy.js';
export {
  UpstreamCredentialSchema,
  DataSourceCredentialSchema,
  OAuthClientCredentialsSchema,
  TokenExchangeSchema,
} from './upstream-credential-schema.js';
export type { UpstreamCredential, OAuthCredential, UserCredential } from './upstream-credential-schema.js';
export { JWT_ALGORITHMS, OAuthSchema, oauthUrlProblem } from './oauth-schema.js';
export type { OAuthConfig, IssuerConfig } from './oauth-schema.js';
