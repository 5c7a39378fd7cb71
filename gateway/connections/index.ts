// The gateway's OAuth client side: token requests at upstream authorization servers (client
// credentials, token exchange, authorization code, refresh) and the per-user connections of issue 42.
export * from './connection-rows.js';
export * from './token-cache.js';
export * from './token-endpoint.js';
export * from './authorization-server.js';
export * from './connection-vault.js';
export * from './consent-required-error.js';
export * from './consent-seal.js';
export * from './user-connections.js';
export * from './user-grant.js';
