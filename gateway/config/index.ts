export {
  GatewayConfigSchema,
  WorkspaceSchema,
  McpSourceSchema,
  ApiKeySchema,
  ServerSchema,
  AccessSchema,
  DataSourceSchema,
  FilesDataSourceSchema,
  HttpDataSourceSchema,
  McpResourcesDataSourceSchema,
  PostgresDataSourceSchema,
  McpSourceFieldsSchema,
  TimeoutsSchema,
  BreakerSchema,
  SourceLimitsSchema,
  ToolFilterSchema,
  PrefixPolicySchema,
  KnowledgeSchema,
  AnswererSchema,
  EmbeddingsSchema,
  LimitsSchema,
  SharedStateSchema,
  SOURCE_TYPES,
  TOOL_DISCLOSURES,
  ToolDisclosureSchema,
  NAME,
} from './config-schema.js';
export type {
  ToolDisclosure,
  PrefixPolicy,
  AnswererConfig,
  EmbeddingsConfig,
  BreakerConfig,
  DataSourceConfig,
  GatewayConfig,
  WorkspaceConfig,
  McpSourceConfig,
  ApiKeyConfig,
  ServerConfig,
  Access,
  LimitsConfig,
  SharedStateConfig,
} from './config-schema.js';
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
export type { UpstreamCredential, OAuthCredential } from './upstream-credential-schema.js';
export { JWT_ALGORITHMS, OAuthSchema, oauthUrlProblem } from './oauth-schema.js';
export type { OAuthConfig, IssuerConfig } from './oauth-schema.js';
