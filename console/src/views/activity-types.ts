// The shapes of GET /agent/usage and GET /agent/activity (docs/api.md; the console contract).
export interface ActivityBucket {
  readonly start: string;
  readonly count: number;
  readonly p50_ms: number | null;
  readonly p95_ms: number | null;
}

export interface ActivitySeries {
  readonly route: string;
  readonly error_class: string;
  readonly buckets: readonly ActivityBucket[];
}

export interface SyncActivity {
  readonly source: string;
  readonly state: string;
  readonly documents: number | null;
  readonly chunks: number | null;
  readonly started_at: string | null;
  readonly finished_at: string | null;
  readonly progress: { readonly done: number; readonly total: number | null } | null;
  readonly error_class: string | null;
}

export interface ActivityBody {
  readonly window_seconds: number;
  readonly bucket_seconds: number;
  readonly scope: string;
  readonly now: string;
  readonly series: readonly ActivitySeries[];
  readonly sync: readonly SyncActivity[];
}

export interface UsageLimit {
  readonly policy: string;
  readonly kind: string;
  readonly limit: number;
  readonly window_seconds: number;
  readonly used: number;
  readonly remaining: number;
  readonly resets_at: string | null;
}

export interface UsageBody {
  readonly key: {
    readonly fingerprint: string;
    readonly name?: string | null;
    readonly access: 'read' | 'write';
    readonly tools: readonly string[] | null;
    readonly sources: readonly string[] | null;
    readonly expires_at: string | null;
  };
  readonly limits: readonly UsageLimit[];
}
