// A shared-state command that does not answer in time counts as failed (the caller then uses local
// state); the command itself is left to finish or fail on its own.
export class SharedStateTimeout extends Error {
  constructor() {
    super('shared state did not answer in time');
    this.name = 'SharedStateTimeout';
  }
}

export function within<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => reject(new SharedStateTimeout()), timeoutMs);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (error: unknown) => {
        clearTimeout(timer);
        reject(error instanceof Error ? error : new Error(String(error)));
      },
    );
  });
}
