export { ERROR_CATALOGUE, catalogueEntry } from './error-catalogue.js';
export type { ErrorClass, ErrorCode, CatalogueEntry, EmitAs } from './error-catalogue.js';
export { GatewayError, isGatewayError } from './gateway-error.js';
export type { ErrorDetail, GatewayErrorOptions } from './gateway-error.js';
export { renderRestError, renderJsonRpcError } from './error-renderer.js';
export type { RestErrorBody } from './error-renderer.js';
