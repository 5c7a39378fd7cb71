export { silentLogger } from './logger.js';
export type { Logger } from './logger.js';
export { createPinoLogger } from './pino-logger.js';
export type { LogLevel } from './pino-logger.js';
