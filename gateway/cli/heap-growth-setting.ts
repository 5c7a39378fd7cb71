// The heap growth setting both long-running commands (serve, operator) apply first: V8's heap
// growing factor from AGW_HEAP_GROWING_PERCENT (platform/heap-growth.ts), or a refusal that names
// the variable, after which the command exits 2.
import { limitHeapGrowth } from '../platform/heap-growth.js';
import type { CliIo } from './cli-io.js';

/** True when the setting is applied; false after writing why it is refused. */
export function applyHeapGrowthSetting(io: CliIo): boolean {
  try {
    limitHeapGrowth();
    return true;
  } catch (error) {
    io.err((error as Error).message);
    return false;
  }
}
