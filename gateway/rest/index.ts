export { registerSourcesRoutes } from './sources-route.js';
export { registerToolsRoute } from './tools-route.js';
export {
  registerMcpConfigRoute,
  clientConfigs,
  KEY_ENV_VAR,
  MCP_PROTOCOL_VERSION,
} from './mcp-config-route.js';
export {
  negotiateFormat,
  encodeBody,
  parseFormatValue,
  TOON_CONTENT_TYPE,
  JSON_CONTENT_TYPE,
} from './response-format.js';
export type { ResponseFormat } from './response-format.js';
export { sendAgentBody } from './agent-reply.js';
export { registerKnowledgeRoutes } from './knowledge-routes.js';
export { registerConnectionRoutes } from './connections-routes.js';
export type { ConnectionRouteDeps } from './connections-routes.js';
export { registerConsentPages } from './consent-pages.js';
