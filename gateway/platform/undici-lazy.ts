// undici (the keep-alive pools of MCP relays and tenant-guarded fetches), loaded the first time a
// pool or guarded fetch is made (issue 26): a gateway with no HTTP upstream never loads it. Types
// come from `import type { … } from 'undici'`.
import type * as Undici from 'undici';
import { lazyModule } from './lazy-module.js';

export const undici = lazyModule<typeof Undici>('undici');
