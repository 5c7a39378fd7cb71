// Which upstream tools a source's catalog leaves out, and telling the log about it (issue 37.11):
// tools whose definition cannot be used (upstream/tool-list-reader.ts) and names the tool-name
// policy refuses are one list, shown in /agent/sources with their reasons. The log hears of a
// source's list once per change, not at every listing (a source with ttlMs 0 is listed per call).
import type { SkippedUpstreamTool } from '../upstream/index.js';
import { printableName, type SkippedTool } from './tool-name-policy.js';
import type { Logger } from '../telemetry/logger.js';

/** Upstream names made printable; reasons are the gateway's own words. */
export function printableSkips(skipped: readonly SkippedUpstreamTool[] | undefined): SkippedTool[] {
  return (skipped ?? []).map((tool) => ({ name: printableName(tool.name), reason: tool.reason }));
}

export class SkippedToolsLog {
  /** The last list logged per source cache key, as one string. */
  private readonly last = new Map<string, string>();

  constructor(private readonly logger: Logger) {}

  /** Logs `skipped` for the source when it differs from what was last logged for `key`. */
  report(key: string, context: { workspace: string; source: string }, skipped: readonly SkippedTool[]): void {
    const signature = skipped.map((tool) => `${tool.name}\u0000${tool.reason}`).join('\u0001');
    if ((this.last.get(key) ?? '') === signature) return;
    this.last.set(key, signature);
    // Bounded: a key per source and credential context, like the discovery cache's.
    if (this.last.size > 10_000) this.last.delete(this.last.keys().next().value as string);
    if (skipped.length === 0) {
      this.logger.info(context, 'upstream tools no longer skipped');
      return;
    }
    this.logger.warn(
      { ...context, skipped: skipped.slice(0, 20), skippedCount: skipped.length },
      'upstream tools skipped',
    );
  }
}
