// PLACEHOLDER (lead): replaced by the t43-ledger branch's port and twin at merge.
export interface TaskOwner {
  readonly workspace: string;
  readonly keyId: string;
}
export interface TaskLedger {
  reserve(owner: TaskOwner, slot: string, until: number, max: number): Promise<boolean>;
  extend(owner: TaskOwner, slot: string, until: number): Promise<void>;
  release(owner: TaskOwner, slot: string): Promise<void>;
  hold(owner: TaskOwner, slot: string, result: Record<string, unknown>, until: number): Promise<void>;
  held(owner: TaskOwner, slot: string): Promise<Record<string, unknown> | undefined>;
}
interface Place {
  until: number;
  result?: Record<string, unknown>;
}
export class MemoryTaskLedger implements TaskLedger {
  private readonly owners = new Map<string, Map<string, Place>>();
  constructor(private readonly options: { now?: () => number } = {}) {}
  private now(): number {
    return (this.options.now ?? Date.now)();
  }
  private places(owner: TaskOwner): Map<string, Place> {
    const id = JSON.stringify([owner.workspace, owner.keyId]);
    let places = this.owners.get(id);
    if (places === undefined) this.owners.set(id, (places = new Map<string, Place>()));
    const now = this.now();
    for (const [slot, place] of places) if (place.until <= now) places.delete(slot);
    return places;
  }
  reserve(owner: TaskOwner, slot: string, until: number, max: number): Promise<boolean> {
    const places = this.places(owner);
    if (places.size >= max) return Promise.resolve(false);
    places.set(slot, { until });
    return Promise.resolve(true);
  }
  extend(owner: TaskOwner, slot: string, until: number): Promise<void> {
    const place = this.places(owner).get(slot);
    if (place !== undefined) place.until = until;
    return Promise.resolve();
  }
  release(owner: TaskOwner, slot: string): Promise<void> {
    this.places(owner).delete(slot);
    return Promise.resolve();
  }
  hold(owner: TaskOwner, slot: string, result: Record<string, unknown>, until: number): Promise<void> {
    this.places(owner).set(slot, { until, result });
    return Promise.resolve();
  }
  held(owner: TaskOwner, slot: string): Promise<Record<string, unknown> | undefined> {
    return Promise.resolve(this.places(owner).get(slot)?.result);
  }
}
