// The task ledger (issue 43): the gateway stores no task itself (task ids are sealed), but it bounds
// how many tasks one API key may hold at once (`server.tasks.maxPerKey`, like the multi-round caps)
// and holds a complete result as a finished task for a 2025-era client that asked for a task when
// the upstream answered in full. A place is taken before the call and ends at a given time; expired
// places never count. This file is the port and its in-memory twin (embedded shape, unit tests and
// the per-replica fallback while Redis is away); redis-task-ledger.ts shares it across replicas.

export interface TaskOwner {
  readonly workspace: string;
  readonly keyId: string;
}

export interface TaskLedger {
  /** Takes a place for one more task of `owner`, named `slot` (random, from the caller), until `until` (ms since epoch); false (nothing taken) when the owner already holds `max` places that have not expired. */
  reserve(owner: TaskOwner, slot: string, until: number, max: number): Promise<boolean>;
  /** Moves a place's end (the upstream made the call a task: until its expiry). Unknown slot: nothing. */
  extend(owner: TaskOwner, slot: string, until: number): Promise<void>;
  /** Gives a place back, and drops a held result under it (the call answered in full to a 2026 client, the task ended or was cancelled). */
  release(owner: TaskOwner, slot: string): Promise<void>;
  /** Keeps `result` (a JSON object) under the place until `until`; the place stays taken until then.
   * Unknown (or expired) slot: nothing is held, so a result never takes a place past the bound. */
  hold(owner: TaskOwner, slot: string, result: Record<string, unknown>, until: number): Promise<void>;
  /** The result held under the place, if it has not expired. */
  held(owner: TaskOwner, slot: string): Promise<Record<string, unknown> | undefined>;
}

export interface MemoryTaskLedgerOptions {
  /** The clock (ms since epoch); tests move it instead of sleeping. */
  readonly now?: () => number;
}

interface Place {
  until: number;
  /** The held result as JSON text: what a caller gets back is a copy, as from Redis. */
  result?: string;
}

/** How often every owner is swept, so owners that never come back leave nothing behind. */
const SWEEP_EVERY_MS = 60_000;

export class MemoryTaskLedger implements TaskLedger {
  private readonly owners = new Map<string, Map<string, Place>>();
  private readonly now: () => number;
  private nextSweep = 0;

  constructor(options: MemoryTaskLedgerOptions = {}) {
    this.now = options.now ?? Date.now;
  }

  /** Owners and places kept, expired ones included until swept (for the bound tests). */
  get size(): { readonly owners: number; readonly places: number } {
    let places = 0;
    for (const owned of this.owners.values()) places += owned.size;
    return { owners: this.owners.size, places };
  }

  reserve(owner: TaskOwner, slot: string, until: number, max: number): Promise<boolean> {
    const places = this.placesOf(owner);
    if ((places?.size ?? 0) >= max) return Promise.resolve(false);
    if (places === undefined) this.owners.set(ownerName(owner), new Map([[slot, { until }]]));
    else places.set(slot, { until });
    return Promise.resolve(true);
  }

  extend(owner: TaskOwner, slot: string, until: number): Promise<void> {
    const place = this.placesOf(owner)?.get(slot);
    if (place !== undefined) place.until = until;
    return Promise.resolve();
  }

  release(owner: TaskOwner, slot: string): Promise<void> {
    const places = this.placesOf(owner);
    if (places !== undefined && places.delete(slot) && places.size === 0)
      this.owners.delete(ownerName(owner));
    return Promise.resolve();
  }

  hold(owner: TaskOwner, slot: string, result: Record<string, unknown>, until: number): Promise<void> {
    const place = this.placesOf(owner)?.get(slot);
    if (place !== undefined) {
      place.until = until;
      place.result = JSON.stringify(result);
    }
    return Promise.resolve();
  }

  held(owner: TaskOwner, slot: string): Promise<Record<string, unknown> | undefined> {
    const result = this.placesOf(owner)?.get(slot)?.result;
    return Promise.resolve(
      result === undefined ? undefined : (JSON.parse(result) as Record<string, unknown>),
    );
  }

  /** The owner's places that have not expired: expired ones are dropped now, and an owner left
   * with none is forgotten (undefined). */
  private placesOf(owner: TaskOwner): Map<string, Place> | undefined {
    const now = this.now();
    if (now >= this.nextSweep) this.sweep(now);
    const name = ownerName(owner);
    const places = this.owners.get(name);
    if (places === undefined) return undefined;
    prune(places, now);
    if (places.size > 0) return places;
    this.owners.delete(name);
    return undefined;
  }

  private sweep(now: number): void {
    this.nextSweep = now + SWEEP_EVERY_MS;
    for (const [name, places] of this.owners) {
      prune(places, now);
      if (places.size === 0) this.owners.delete(name);
    }
  }
}

/** A place ends at `until`: from then on it no longer counts. */
function prune(places: Map<string, Place>, now: number): void {
  for (const [slot, place] of places) if (place.until <= now) places.delete(slot);
}

function ownerName(owner: TaskOwner): string {
  return `${owner.workspace}\0${owner.keyId}`;
}
