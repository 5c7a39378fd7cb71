export { GROUP, VERSION, CATEGORY } from './common.js';
export { WORKSPACE, WorkspaceSpecSchema, WorkspaceStatusSchema } from './workspace.js';
export { API_KEY, ApiKeySpecSchema, ApiKeyStatusSchema } from './api-key.js';
export { MCP_SOURCE, McpSourceSpecSchema, McpSourceStatusSchema } from './mcp-source.js';
export { McpRunSchema } from './mcp-run.js';
export type { McpRun } from './mcp-run.js';
export { DATA_SOURCE, DataSourceSpecSchema, DataSourceStatusSchema } from './data-source.js';
export type { CrdDefinition, CelRule, PrinterColumn } from './crd-definition.js';
import { API_KEY } from './api-key.js';
import { DATA_SOURCE } from './data-source.js';
import { MCP_SOURCE } from './mcp-source.js';
import { WORKSPACE } from './workspace.js';

/** Every kind of agentgateway.dev/v1alpha1, in the order their CRDs are written. */
export const KINDS = [WORKSPACE, API_KEY, MCP_SOURCE, DATA_SOURCE] as const;
