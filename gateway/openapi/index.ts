// The openapi room (issue 44): an OpenAPI 3.0/3.1 document read as tools, the HTTP request a call of
// one becomes, and the answer read as a tool result. Pure: the connection (gateway/upstream
// openapi-connection.ts) does the I/O.
export {
  DOCUMENT_LIMIT_DEFAULTS,
  OpenApiDocumentError,
  openApiCatalog,
  type CatalogOptions,
  type DocumentLimits,
} from './openapi-catalog.js';
export { buildRequest, InvalidToolArguments } from './request-builder.js';
export { httpToolResult, type HttpAnswer } from './http-result.js';
export type {
  BuiltRequest,
  OpenApiCatalog,
  OpenApiTool,
  OperationFilter,
  SkippedOperation,
} from './openapi-tool.js';
