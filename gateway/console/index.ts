export { loadConsoleAssets } from './console-assets.js';
export type { ConsoleAsset } from './console-assets.js';
export { registerConsoleRoutes, CONSOLE_CSP } from './console-route.js';
