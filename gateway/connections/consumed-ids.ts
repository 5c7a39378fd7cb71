// Single-use ids kept in this process until they expire (issue 42: a consent callback's state is
// consumed once). Used by the memory store; SQLite and PostgreSQL keep theirs in a table.

export interface ConnectionRowsOptions {
  /** The clock consumed ids expire by (tests move it); Date.now by default. */
  readonly now?: () => number;
}

/** An id whose expiry has passed is never consumable: refused, not recorded. */
export function alreadyExpired(expiresAtMs: number, nowMs: number): boolean {
  return !(expiresAtMs > nowMs);
}

/** Expired ids are swept at most this often (a sweep walks every id). */
const SWEEP_EVERY_MS = 1000;

export class ConsumedIds {
  private readonly ids = new Map<string, number>();
  private sweptAtMs = -Infinity;

  constructor(private readonly now: () => number) {}

  consume(id: string, expiresAtMs: number): boolean {
    const now = this.now();
    this.sweep(now);
    if (alreadyExpired(expiresAtMs, now)) return false;
    const held = this.ids.get(id);
    if (held !== undefined && !alreadyExpired(held, now)) return false;
    this.ids.set(id, expiresAtMs);
    return true;
  }

  /** How many ids are remembered (expired ones go at the next sweep). */
  get size(): number {
    return this.ids.size;
  }

  private sweep(now: number): void {
    if (now - this.sweptAtMs < SWEEP_EVERY_MS) return;
    this.sweptAtMs = now;
    for (const [id, expiresAtMs] of this.ids) if (alreadyExpired(expiresAtMs, now)) this.ids.delete(id);
  }
}
