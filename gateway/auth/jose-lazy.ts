// jose, loaded the first time a token is checked (issue 26): a gateway without OAuth never loads it.
import type * as Jose from 'jose';
import { lazyModule } from '../platform/lazy-module.js';

export const jose = lazyModule<typeof Jose>('jose');
