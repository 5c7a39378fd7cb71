// Which workspaces read which Secret (issue 26). Every Secret a reconcile looks up in the cache,
// found or missing, is recorded against the workspace being reconciled (carried by an
// AsyncLocalStorage, so the controller needs no change), and replaces what its previous reconcile
// read. A Secret event then re-enqueues just those workspaces. Re-enqueueing every workspace of the
// Secret's namespace instead made each key Secret the operator issued re-run all of them: 3,067
// reconciles for a bulk apply of 100 Workspaces and 1,000 ApiKeys. The operator keeps a second one
// for ConfigMaps (an McpSource's OpenAPI document, issue 44).
import { AsyncLocalStorage } from 'node:async_hooks';

export class SecretReaders {
  private readonly current = new AsyncLocalStorage<{ workspace: string; read: Set<string> }>();
  private readonly byWorkspace = new Map<string, Set<string>>();
  private readonly bySecret = new Map<string, Set<string>>();

  /** Runs one reconcile of `workspace` (one at a time per workspace), recording what it reads. */
  async track<R>(workspace: string, reconcile: () => Promise<R>): Promise<R> {
    this.forget(workspace);
    const read = new Set<string>();
    this.byWorkspace.set(workspace, read);
    try {
      return await this.current.run({ workspace, read }, reconcile);
    } finally {
      if (read.size === 0 && this.byWorkspace.get(workspace) === read) this.byWorkspace.delete(workspace);
    }
  }

  /** Records a cache lookup of a Secret by the reconcile running now (none: not recorded). */
  read(namespace: string, name: string): void {
    const store = this.current.getStore();
    if (store === undefined || this.byWorkspace.get(store.workspace) !== store.read) return;
    const secret = `${namespace}/${name}`;
    store.read.add(secret);
    let readers = this.bySecret.get(secret);
    if (readers === undefined) this.bySecret.set(secret, (readers = new Set()));
    readers.add(store.workspace);
  }

  /** The workspaces whose last reconcile read this Secret. */
  readersOf(namespace: string, name: string): readonly string[] {
    return [...(this.bySecret.get(`${namespace}/${name}`) ?? [])];
  }

  clear(): void {
    this.byWorkspace.clear();
    this.bySecret.clear();
  }

  private forget(workspace: string): void {
    for (const secret of this.byWorkspace.get(workspace) ?? []) {
      const readers = this.bySecret.get(secret);
      readers?.delete(workspace);
      if (readers?.size === 0) this.bySecret.delete(secret);
    }
    this.byWorkspace.delete(workspace);
  }
}
