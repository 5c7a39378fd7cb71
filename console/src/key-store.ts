// Where the signed-in key lives: this tab's sessionStorage and nowhere else — never a cookie, never
// localStorage, never a URL. Closing the tab or signing out forgets it.
const SLOT = 'agw-console:key';

export class KeyStore {
  constructor(private readonly storage: Storage) {}

  get(): string | undefined {
    return this.storage.getItem(SLOT) ?? undefined;
  }

  set(key: string): void {
    this.storage.setItem(SLOT, key);
  }

  clear(): void {
    this.storage.removeItem(SLOT);
  }
}
