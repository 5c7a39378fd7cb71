// A counting semaphore for calls to a shared dependency (issue 37): at most `size` of the tasks
// handed to run() are in flight at once; the others wait their turn in arrival order.
export class Permits {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly size: number) {}

  async run<T>(task: () => Promise<T>): Promise<T> {
    // A released permit passes straight to the next waiter, so `active` counts it throughout.
    if (this.active >= this.size) await new Promise<void>((resolve) => this.waiting.push(resolve));
    else this.active += 1;
    try {
      return await task();
    } finally {
      const next = this.waiting.shift();
      if (next === undefined) this.active -= 1;
      else next();
    }
  }
}
