// What the gateway last learned about each source: shown by GET /agent/sources.
import type { ErrorClass, ErrorCode } from '../errors/index.js';
import type { FailingSource } from './source-prober.js';
import type { SkippedTool } from './tool-name-policy.js';

export type SourceHealth = 'ready' | 'unavailable' | 'unknown';

export interface SourceState {
  readonly status: SourceHealth;
  readonly toolCount: number;
  readonly checkedAt: string | undefined;
  readonly error: { readonly code: ErrorCode; readonly errorClass: ErrorClass } | undefined;
  /** The protocol era detected for the source's live connection (`modern` or `legacy`), and when. */
  readonly era: string | undefined;
  readonly eraDetectedAt: string | undefined;
  /** The transport in use, which may differ from the configured one after era detection. */
  readonly transportInUse: string | undefined;
  /** Upstream tools left out of the catalog (unusable definition or name policy), with why. */
  readonly skippedTools: readonly SkippedTool[];
  /** Why the last listing failed, in the gateway's words (list-failure.ts); undefined when it worked. */
  readonly lastError?: string | undefined;
  /** Set while this replica knows the source as failing: left out of listings, probed in the
   * background (source-prober.ts). */
  readonly failing?: FailingSource;
}

export const UNKNOWN_STATE: SourceState = {
  status: 'unknown',
  toolCount: 0,
  checkedAt: undefined,
  error: undefined,
  era: undefined,
  eraDetectedAt: undefined,
  transportInUse: undefined,
  skippedTools: [],
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
