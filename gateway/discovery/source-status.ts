// What the gateway last learned about each source: shown by GET /agent/sources.
import type { ErrorClass, ErrorCode } from '../errors/index.js';

export type SourceHealth = 'ready' | 'unavailable' | 'unknown';

export interface SourceState {
  readonly status: SourceHealth;
  readonly toolCount: number;
  readonly checkedAt: string | undefined;
  readonly error: { readonly code: ErrorCode; readonly errorClass: ErrorClass } | undefined;
}

export const UNKNOWN_STATE: SourceState = {
  status: 'unknown',
  toolCount: 0,
  checkedAt: undefined,
  error: undefined,
};

export class SourceStatusRegistry {
  private readonly states = new Map<string, SourceState>();

  get(workspace: string, source: string): SourceState {
    return this.states.get(`${workspace}/${source}`) ?? UNKNOWN_STATE;
  }

  set(workspace: string, source: string, state: SourceState): void {
    this.states.set(`${workspace}/${source}`, state);
  }
}
