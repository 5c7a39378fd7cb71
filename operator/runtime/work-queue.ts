// A level-triggered work queue (client-go style): keys are deduplicated, one reconcile per key runs
// at a time, a key added while it runs is run again afterwards, and a failing key is retried with
// per-key exponential backoff (base × 2^failures, capped) until it succeeds.
export interface WorkQueueOptions {
  readonly concurrency?: number;
  readonly baseDelayMs?: number;
  readonly maxDelayMs?: number;
  readonly onError?: (key: string, error: unknown, retryInMs: number) => void;
}

export class WorkQueue {
  private readonly pending = new Set<string>();
  private readonly order: string[] = [];
  private readonly running = new Set<string>();
  private readonly dirty = new Set<string>();
  private readonly failures = new Map<string, number>();
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private active = 0;
  private stopped = false;

  /** Keys waiting or being reconciled (the queue-depth gauge). */
  get depth(): number {
    return this.order.length + this.active;
  }
  private idleWaiters: (() => void)[] = [];

  constructor(
    private readonly reconcile: (key: string) => Promise<void>,
    private readonly options: WorkQueueOptions = {},
  ) {}

  add(key: string): void {
    if (this.stopped) return;
    if (this.running.has(key)) {
      this.dirty.add(key);
      return;
    }
    if (this.pending.has(key)) return;
    this.pending.add(key);
    this.order.push(key);
    this.pump();
  }

  /** Adds `key` after `delayMs` (a later add replaces an earlier pending timer). */
  addAfter(key: string, delayMs: number): void {
    const timer = this.timers.get(key);
    if (timer !== undefined) clearTimeout(timer);
    const next = setTimeout(() => {
      this.timers.delete(key);
      this.add(key);
    }, delayMs);
    next.unref();
    this.timers.set(key, next);
  }

  /** Resolves when nothing is queued or running (tests and shutdown). */
  idle(): Promise<void> {
    if (this.active === 0 && this.order.length === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  stop(): void {
    this.stopped = true;
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.order.length = 0;
    this.pending.clear();
  }

  private pump(): void {
    const limit = this.options.concurrency ?? 2;
    while (this.active < limit && this.order.length > 0) {
      const key = this.order.shift() as string;
      this.pending.delete(key);
      this.running.add(key);
      this.active += 1;
      void this.runOne(key);
    }
    if (this.active === 0 && this.order.length === 0) {
      const waiters = this.idleWaiters;
      this.idleWaiters = [];
      for (const resolve of waiters) resolve();
    }
  }

  private async runOne(key: string): Promise<void> {
    try {
      await this.reconcile(key);
      this.failures.delete(key);
    } catch (error) {
      const failures = (this.failures.get(key) ?? 0) + 1;
      this.failures.set(key, failures);
      const delay = Math.min(
        (this.options.baseDelayMs ?? 100) * 2 ** (failures - 1),
        this.options.maxDelayMs ?? 30_000,
      );
      this.options.onError?.(key, error, delay);
      if (!this.stopped) this.addAfter(key, delay);
    } finally {
      this.running.delete(key);
      this.active -= 1;
      if (this.dirty.delete(key)) this.add(key);
      this.pump();
    }
  }
}
