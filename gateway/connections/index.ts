// The gateway's OAuth client side: token requests at upstream authorization servers (client
// credentials, token exchange, authorization code, refresh) and the per-user connections of issue 42.
export * from './connection-rows.js';
export { ConnectionLockTimeout, KeyedMutex } from './keyed-mutex.js';
export type { ConnectionRowsOptions } from './consumed-ids.js';
export { MemoryConnectionRows } from './memory-connection-rows.js';
export { SqliteConnectionRows } from './sqlite-connection-rows.js';
// A class whose driver loads only in PgConnectionRows.open (the module itself imports pg as a type).
export { PgConnectionRows } from './pg-connection-rows.js';
export type { PgConnectionRowsOptions } from './pg-connection-rows.js';
export { openConnectionRows } from './open-connection-rows.js';
export * from './token-cache.js';
export * from './token-endpoint.js';
export * from './authorization-server.js';
export * from './connection-vault.js';
export * from './consent-required-error.js';
export * from './consent-seal.js';
export * from './user-connections.js';
export * from './user-grant.js';
