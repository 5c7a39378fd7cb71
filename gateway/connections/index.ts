// The gateway's OAuth client side: token requests at upstream authorization servers (client
// credentials, token exchange, authorization code, refresh) and the per-user connections of issue 42.
export * from './connection-rows.js';
export * from './token-cache.js';
export * from './token-endpoint.js';
