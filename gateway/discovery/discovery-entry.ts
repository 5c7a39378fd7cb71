// What the discovery cache holds (DiscoveryCache<DiscoveryEntry>): a source's raw tool list under
// its key, and its resources, resource templates and prompts under suffixed keys. Both ToolCatalog
// and SourceListCache write the one cache, so the entry shapes live here, below them both.
import type { Tool } from '@modelcontextprotocol/client';
import type { SourceState } from './source-status.js';

/** A raw upstream list as cached (shared between replicas with Redis), with the time it stops
 * being fresh and what the listing replica learned about the source, so every replica can report
 * it in /agent/sources. */
export interface CachedToolList {
  readonly tools: readonly Tool[];
  readonly expiresAt: number;
  readonly checkedAt?: string;
  readonly era?: string | undefined;
  readonly eraDetectedAt?: string;
  readonly transportInUse?: string;
  readonly skippedTools?: SourceState['skippedTools'];
  /** The upstream advertised the 2026 tasks extension (issue 43). */
  readonly tasks?: boolean;
}

export type ListKind = 'resources' | 'resourceTemplates' | 'prompts';

export interface CachedSourceList {
  readonly kind: ListKind;
  readonly items: readonly Record<string, unknown>[];
}

/** Everything the discovery cache holds; the key tells which. */
export type DiscoveryEntry = CachedToolList | CachedSourceList;
