// What pinning decided last for each source on this replica (issue 41): the tools held (or, under
// `warn`, served unapproved) and why. Read by tools/call to tell a held tool from an unknown one,
// by /agent/sources and the console to show the change, and by listeners (a log line, a metric, the
// report to the operator) that hear each new verdict once.
import type { Logger } from '../telemetry/logger.js';
import type { PinVerdict, UnapprovedTool } from './tool-pins.js';

/** Hears a source's verdict when the tools or digests in it changed. */
export type PinListener = (workspace: string, source: string, verdict: PinVerdict) => void;

const NONE: PinVerdict = { mode: 'off', unapproved: [] };

function sameTools(a: PinVerdict, b: PinVerdict): boolean {
  return (
    a.mode === b.mode &&
    a.unapproved.length === b.unapproved.length &&
    a.unapproved.every(
      (tool, i) => tool.tool === b.unapproved[i]?.tool && tool.digest === b.unapproved[i]?.digest,
    )
  );
}

export class PinLedger {
  private readonly verdicts = new Map<string, PinVerdict>();
  private readonly listeners: PinListener[] = [];

  private static key(workspace: string, source: string): string {
    return `${workspace}\u0000${source}`;
  }

  onVerdict(listener: PinListener): void {
    this.listeners.push(listener);
  }

  /** Records a listing's verdict; listeners hear it only when it differs from the last one. */
  record(workspace: string, source: string, verdict: PinVerdict): void {
    const key = PinLedger.key(workspace, source);
    const previous = this.verdicts.get(key);
    if (previous === verdict) return;
    this.verdicts.set(key, verdict);
    if (previous !== undefined ? sameTools(previous, verdict) : verdict.unapproved.length === 0) return;
    for (const listener of this.listeners) listener(workspace, source, verdict);
  }

  verdict(workspace: string, source: string): PinVerdict {
    return this.verdicts.get(PinLedger.key(workspace, source)) ?? NONE;
  }

  /** The held tool of this name (upstream name), under `pin` only. */
  held(workspace: string, source: string, tool: string): UnapprovedTool | undefined {
    const verdict = this.verdict(workspace, source);
    return verdict.mode === 'pin' ? verdict.unapproved.find((entry) => entry.tool === tool) : undefined;
  }

  /** Every source with a verdict (for the held-tools gauge). */
  entries(): { workspace: string; source: string; verdict: PinVerdict }[] {
    return [...this.verdicts].map(([key, verdict]) => {
      const [workspace = '', source = ''] = key.split('\u0000');
      return { workspace, source, verdict };
    });
  }

  /** Forgets the sources not in `keep` (workspace NUL source). */
  retain(keep: ReadonlySet<string>): void {
    for (const key of this.verdicts.keys()) if (!keep.has(key)) this.verdicts.delete(key);
  }

  static retainKey(workspace: string, source: string): string {
    return PinLedger.key(workspace, source);
  }
}

/** Tells the log of each new verdict: which tools, what changed and the mode; never a description. */
export function logVerdict(logger: Logger, workspace: string, source: string, verdict: PinVerdict): void {
  if (verdict.unapproved.length === 0) {
    logger.info({ workspace, source, mode: verdict.mode }, 'tool definitions all approved');
    return;
  }
  logger.warn(
    {
      workspace,
      source,
      mode: verdict.mode,
      unapprovedCount: verdict.unapproved.length,
      unapproved: verdict.unapproved.slice(0, 20).map(({ tool, change, fields, digest }) => ({
        tool,
        change,
        ...(fields === undefined ? {} : { fields }),
        digest,
      })),
    },
    verdict.mode === 'pin'
      ? 'tools held: definitions not approved'
      : 'tools served with unapproved definitions',
  );
}
