// The flat record shape of a connected source (GET /agent/sources). Flat columns keep TOON tabular.
import type { McpSourceConfig } from '../config/index.js';
import type { SourceState } from '../discovery/index.js';
import type { BreakerState } from '../upstream/index.js';

export interface SourceRecord {
  readonly id: string;
  readonly type: 'mcp';
  readonly transport: McpSourceConfig['transport'];
  readonly status: SourceState['status'];
  readonly tool_count: number;
  readonly checked_at: string | null;
  readonly error_code: string | null;
  readonly error_class: string | null;
  readonly description: string | null;
  readonly breaker: BreakerState;
  readonly era: string | null;
  readonly era_detected_at: string | null;
  readonly transport_in_use: string | null;
}

export function sourceRecord(
  source: McpSourceConfig,
  state: SourceState,
  breaker: BreakerState,
): SourceRecord {
  return {
    id: source.name,
    type: 'mcp',
    transport: source.transport,
    status: state.status,
    tool_count: state.toolCount,
    checked_at: state.checkedAt ?? null,
    error_code: state.error?.code ?? null,
    error_class: state.error?.errorClass ?? null,
    description: source.description ?? null,
    breaker,
    era: state.era ?? null,
    era_detected_at: state.eraDetectedAt ?? null,
    transport_in_use: state.transportInUse ?? null,
  };
}
