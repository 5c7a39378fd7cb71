// SyncEngine (issue 4) with a scripted connector, the memory lock and a real SQLite store:
// incremental by content hash, stable ids, deletes only after a complete listing, one sync per
// source at a time, and state that matches the index.
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { DataSourceConfig } from '../../../gateway/config/index.js';
import {
  MemorySourceLock,
  SqliteKnowledgeStore,
  SyncEngine,
  contentHash,
  documentId,
  type ConnectorFactory,
  type SourceItem,
} from '../../../gateway/knowledge/index.js';
import { until } from '../../support/until.js';
import { captureLogger, type LoggedLine } from '../support/capture-logger.js';
import { knowledgeConfig } from './knowledge-fixtures.js';

/** A connector whose items, failure point and pause point the test controls. */
class ScriptedSource {
  items: SourceItem[] = [];
  /** Throw `failure` instead of yielding the item at this index. */
  failAt: number | undefined;
  failure: Error = new Error('connector exploded with a secret-looking message');
  /** Wait for `release` before yielding the item at this index. */
  pauseAt: number | undefined;
  readonly reached = Promise.withResolvers<void>();
  readonly release = Promise.withResolvers<void>();
  signals: AbortSignal[] = [];

  readonly factory: ConnectorFactory = () => ({ items: (signal) => this.iterate(signal) });

  private async *iterate(signal: AbortSignal): AsyncGenerator<SourceItem> {
    this.signals.push(signal);
    for (const [index, item] of this.items.entries()) {
      if (index === this.pauseAt) {
        this.reached.resolve();
        await this.release.promise;
      }
      if (index === this.failAt) throw this.failure;
      yield item;
    }
  }
}

function item(externalId: string, body: string, title = externalId): SourceItem {
  return { externalId, title, body, url: `files/${externalId}`, updatedAt: undefined };
}

const config = knowledgeConfig([
  { name: 'acme', dataSources: ['docs', 'wiki'], keys: [] },
  { name: 'beta', dataSources: ['docs'], keys: [] },
]);
const docs: DataSourceConfig = config.workspaces[0]!.dataSources[0]!;
const wiki: DataSourceConfig = config.workspaces[0]!.dataSources[1]!;
const ALL = { allowedSourceIds: ['docs', 'wiki'] };

let store: SqliteKnowledgeStore;
let source: ScriptedSource;
let lines: LoggedLine[];
let engine: SyncEngine;

beforeEach(() => {
  store = new SqliteKnowledgeStore(':memory:');
  source = new ScriptedSource();
  lines = [];
  engine = new SyncEngine(store, new MemorySourceLock(), captureLogger(lines), source.factory);
});

afterEach(async () => {
  engine.stop();
  await store.close();
});

async function searchIds(term: string, workspace = 'acme'): Promise<string[]> {
  return (await store.workspace(workspace).search([term], ALL, 100)).map((h) => h.docId).sort();
}

async function expectStateMatchesIndex(workspace: string, sourceConfig: DataSourceConfig): Promise<void> {
  expect(engine.state(workspace, sourceConfig.name).documents).toBe(
    await store.workspace(workspace).countDocuments(sourceConfig.name),
  );
}

const id = (externalId: string, workspace = 'acme', sourceName = 'docs') =>
  documentId(workspace, sourceName, externalId);

describe('SyncEngine', () => {
  it('starts idle with nothing indexed', () => {
    expect(engine.state('acme', 'docs')).toEqual({
      status: 'idle',
      lastSyncAt: undefined,
      lastSuccessAt: undefined,
      lastError: undefined,
      documents: 0,
      progress: undefined,
    });
  });

  it('adds every item on the first sync, under stable ids', async () => {
    source.items = [
      item('a.md', 'alpha albatross'),
      item('b.md', 'bravo albatross'),
      item('c.md', 'charlie albatross'),
    ];
    expect(await engine.sync('acme', docs)).toEqual({ added: 3, updated: 0, unchanged: 0, removed: 0 });
    expect(await searchIds('albatross')).toEqual([id('a.md'), id('b.md'), id('c.md')].sort());
    const stored = await store.workspace('acme').getDocument(id('a.md'));
    expect(stored).toMatchObject({
      sourceId: 'docs',
      sourceType: 'files',
      externalId: 'a.md',
      title: 'a.md',
      url: 'files/a.md',
      contentHash: contentHash('a.md', 'alpha albatross', 'files/a.md', ''),
      bodyChars: 'alpha albatross'.length,
      chunkCount: 1,
    });
    const state = engine.state('acme', 'docs');
    expect(state).toMatchObject({ status: 'idle', documents: 3, lastError: undefined, progress: undefined });
    expect(Date.parse(state.lastSuccessAt!)).toBeGreaterThanOrEqual(Date.parse(state.lastSyncAt!));
    await expectStateMatchesIndex('acme', docs);
    expect(source.signals[0]!.aborted).toBe(false);
    expect(lines.find((l) => l.message === 'data source synced')?.fields).toMatchObject({
      workspace: 'acme',
      source: 'docs',
      added: 3,
      documents: 3,
    });
  });

  it('reports updated, removed, added and unchanged items on the next sync', async () => {
    source.items = [
      item('keep.md', 'stable walrus'),
      item('edit.md', 'old heron'),
      item('drop.md', 'doomed puffin'),
    ];
    await engine.sync('acme', docs);
    const before = await store.workspace('acme').getDocument(id('keep.md'));

    source.items = [
      item('keep.md', 'stable walrus'),
      item('edit.md', 'new egret'),
      item('new.md', 'fresh gannet'),
    ];
    expect(await engine.sync('acme', docs)).toEqual({ added: 1, updated: 1, unchanged: 1, removed: 1 });
    expect(await store.workspace('acme').getDocument(id('keep.md'))).toEqual(before);
    expect(await searchIds('walrus')).toEqual([id('keep.md')]);
    expect(await searchIds('heron')).toEqual([]);
    expect(await searchIds('egret')).toEqual([id('edit.md')]);
    expect(await searchIds('puffin')).toEqual([]);
    expect(await store.workspace('acme').getDocument(id('drop.md'))).toBeUndefined();
    expect(await searchIds('gannet')).toEqual([id('new.md')]);
    await expectStateMatchesIndex('acme', docs);
    expect(engine.state('acme', 'docs').documents).toBe(3);

    expect(await engine.sync('acme', docs)).toEqual({ added: 0, updated: 0, unchanged: 3, removed: 0 });
  });

  it('treats a title or url change as an update', async () => {
    source.items = [item('a.md', 'same body', 'Old title')];
    await engine.sync('acme', docs);
    source.items = [item('a.md', 'same body', 'New title')];
    expect(await engine.sync('acme', docs)).toMatchObject({ updated: 1, added: 0 });
    source.items = [{ ...item('a.md', 'same body', 'New title'), url: 'elsewhere' }];
    expect(await engine.sync('acme', docs)).toMatchObject({ updated: 1, added: 0 });
    expect((await store.workspace('acme').getDocument(id('a.md')))?.url).toBe('elsewhere');
  });

  it('removes everything when the source lists nothing after a complete listing', async () => {
    source.items = [item('a.md', 'alpha'), item('b.md', 'bravo')];
    await engine.sync('acme', docs);
    source.items = [];
    expect(await engine.sync('acme', docs)).toEqual({ added: 0, updated: 0, unchanged: 0, removed: 2 });
    expect(await store.workspace('acme').countDocuments('docs')).toBe(0);
    await expectStateMatchesIndex('acme', docs);
  });

  it('keeps sources and workspaces apart', async () => {
    source.items = [item('a.md', 'shared kestrel')];
    await engine.sync('acme', docs);
    await engine.sync('acme', wiki);
    await engine.sync('beta', docs);
    const ids = [id('a.md'), id('a.md', 'acme', 'wiki'), id('a.md', 'beta')];
    expect(new Set(ids).size).toBe(3);
    expect(await searchIds('kestrel')).toEqual([ids[0]!, ids[1]!].sort());
    expect(await searchIds('kestrel', 'beta')).toEqual([ids[2]!]);
    // An empty listing of one source removes nothing from the others.
    source.items = [];
    expect(await engine.sync('acme', wiki)).toMatchObject({ removed: 1 });
    expect(await searchIds('kestrel')).toEqual([ids[0]!]);
    expect(await searchIds('kestrel', 'beta')).toEqual([ids[2]!]);
    expect(engine.state('acme', 'docs').documents).toBe(1);
    expect(engine.state('acme', 'wiki').documents).toBe(0);
    expect(engine.state('beta', 'docs').documents).toBe(1);
  });

  it('leaves indexed documents searchable and deletes nothing when the connector fails', async () => {
    source.items = [
      item('a.md', 'alpha osprey'),
      item('b.md', 'bravo osprey'),
      item('c.md', 'charlie osprey'),
    ];
    await engine.sync('acme', docs);
    const succeeded = engine.state('acme', 'docs').lastSuccessAt;

    // The next listing changes a, adds d, then breaks before b and c are listed.
    source.items = [
      item('a.md', 'alpha changed osprey'),
      item('d.md', 'delta osprey'),
      item('b.md', 'bravo osprey'),
    ];
    source.failAt = 2;
    await expect(engine.sync('acme', docs)).rejects.toBe(source.failure);

    expect(await searchIds('osprey')).toEqual([id('a.md'), id('b.md'), id('c.md'), id('d.md')].sort());
    expect(await searchIds('charlie')).toEqual([id('c.md')]);
    const state = engine.state('acme', 'docs');
    expect(state.status).toBe('failed');
    expect(state.lastError).toEqual(expect.any(String));
    // The error's name is kept, its message (possibly holding secrets) is not.
    expect(state.lastError).toMatch(/^Error: /);
    expect(state.lastError).not.toContain('secret');
    expect(state.lastSuccessAt).toBe(succeeded);
    expect(state.progress).toBeUndefined();
    expect(state.documents).toBe(4);
    await expectStateMatchesIndex('acme', docs);
    const warning = lines.find((l) => l.level === 'warn');
    expect(warning?.fields).toMatchObject({ workspace: 'acme', source: 'docs' });
    expect(JSON.stringify(warning)).not.toContain('secret');

    // A later complete listing recovers, and only then removes what is gone.
    source.failAt = undefined;
    source.items = [item('a.md', 'alpha changed osprey')];
    expect(await engine.sync('acme', docs)).toEqual({ added: 0, updated: 0, unchanged: 1, removed: 3 });
    expect(engine.state('acme', 'docs')).toMatchObject({
      status: 'idle',
      lastError: undefined,
      documents: 1,
    });
  });

  it('records the error code of a failure that has one', async () => {
    source.items = [item('a.md', 'alpha')];
    source.failAt = 0;
    source.failure = Object.assign(new Error('ENOENT: no such file or directory, scandir /srv/docs'), {
      code: 'ENOENT',
    });
    await expect(engine.sync('acme', docs)).rejects.toThrow();
    expect(engine.state('acme', 'docs')).toMatchObject({
      status: 'failed',
      lastError: 'Error: ENOENT',
      documents: 0,
      lastSuccessAt: undefined,
    });
  });

  it('runs one sync of a source at a time; a second call resolves undefined at once', async () => {
    source.items = Array.from({ length: 120 }, (_, i) => item(`f${i}.md`, `file ${i} cormorant`));
    source.pauseAt = 110;
    const first = engine.sync('acme', docs);
    await source.reached.promise;

    expect(engine.state('acme', 'docs').status).toBe('syncing');
    // Progress counts every item (it used to move in steps of 50); a first sync knows no total.
    expect(engine.state('acme', 'docs').progress).toEqual({ done: 110, total: undefined });
    expect(engine.state('acme', 'docs').indexing).toMatchObject({
      phase: 'sync',
      documentsDone: 110,
      documentsTotal: undefined,
      chunksDone: 110,
      chunksTotal: undefined,
      etaSeconds: undefined,
    });
    expect(await engine.sync('acme', docs)).toBeUndefined();
    // Other sources, and the same source name in another workspace, are not blocked.
    const other = new SyncEngine(store, new MemorySourceLock(), captureLogger(), () => ({
      items: async function* () {
        yield await Promise.resolve(item('w.md', 'wiki page'));
      },
    }));
    expect(await other.sync('acme', wiki)).toMatchObject({ added: 1 });

    source.release.resolve();
    expect(await first).toEqual({ added: 120, updated: 0, unchanged: 0, removed: 0 });
    expect(engine.state('acme', 'docs')).toMatchObject({
      status: 'idle',
      documents: 120,
      progress: undefined,
    });
    await expectStateMatchesIndex('acme', docs);
    // The lock is released: the next sync runs.
    expect(await engine.sync('acme', docs)).toMatchObject({ unchanged: 120 });
  });

  it('syncFresh waits for a running sync and then syncs again, so a change made meanwhile is seen', async () => {
    source.items = [item('a.md', 'alpha')];
    source.pauseAt = 0;
    const first = engine.sync('acme', docs);
    await source.reached.promise;
    source.items = [item('a.md', 'alpha'), item('b.md', 'bravo')];
    const fresh = engine.syncFresh('acme', docs);
    source.pauseAt = undefined;
    source.release.resolve();
    await first;
    expect(await fresh).toEqual({ added: 1, updated: 0, unchanged: 1, removed: 0 });
  });

  it('knowledge:refresh-202 — requestSync starts at once and shows syncing; while one runs it queues one more, shown syncing until that one ends', async () => {
    source.items = [item('a.md', 'alpha')];
    expect(engine.requestSync('acme', docs)).toBe('started');
    expect(engine.state('acme', 'docs').status).toBe('syncing');
    await until('the started sync to end', () =>
      Promise.resolve(engine.state('acme', 'docs').status === 'idle' ? true : undefined),
    );
    expect(engine.state('acme', 'docs').lastReport).toEqual({
      added: 1,
      updated: 0,
      unchanged: 0,
      removed: 0,
    });

    source.pauseAt = 0;
    const first = engine.sync('acme', docs);
    await source.reached.promise;
    source.items = [item('a.md', 'alpha'), item('b.md', 'bravo')];
    expect(engine.requestSync('acme', docs)).toBe('queued');
    expect(engine.requestSync('acme', docs)).toBe('queued');
    const listings = source.signals.length;
    source.pauseAt = undefined;
    source.release.resolve();
    await first;
    // The running sync ended; the queued one has not: a follower still sees syncing.
    expect(engine.state('acme', 'docs').status).toBe('syncing');
    await until('the queued sync to end', () =>
      Promise.resolve(engine.state('acme', 'docs').status === 'idle' ? true : undefined),
    );
    // One more listing (the two requests made one), which saw the change made meanwhile.
    expect(source.signals.length).toBe(listings + 1);
    expect(engine.state('acme', 'docs')).toMatchObject({
      documents: 2,
      lastReport: { added: 1, updated: 0, unchanged: 1, removed: 0 },
    });
  });

  it('syncFresh gives up after its wait when the source stays busy', async () => {
    source.items = [item('a.md', 'alpha')];
    source.pauseAt = 0;
    const first = engine.sync('acme', docs);
    await source.reached.promise;
    expect(await engine.syncFresh('acme', docs, 250)).toBeUndefined();
    source.release.resolve();
    await first;
  });

  it('a change notification syncs once after a burst; a removed source stops syncing on change', async () => {
    const notify: (() => void)[] = [];
    let listings = 0;
    const watched = new SyncEngine(store, new MemorySourceLock(), captureLogger(), () => ({
      items: async function* () {
        listings += 1;
        yield await Promise.resolve(item('a.md', `alpha ${listings}`));
      },
      watch: (changed) => {
        notify.push(changed);
        return () => undefined;
      },
    }));
    const only = (sources: string[]) => knowledgeConfig([{ name: 'acme', dataSources: sources, keys: [] }]);
    try {
      watched.schedule(only(['docs']));
      await vi.waitFor(() => expect(listings).toBe(1));
      for (let i = 0; i < 5; i += 1) notify[0]!();
      await vi.waitFor(() => expect(listings).toBe(2), { timeout: 3000 });
      notify[0]!();
      watched.schedule(only([]));
      await new Promise((r) => setTimeout(r, 600));
      expect(listings).toBe(2);
    } finally {
      watched.stop();
    }
  });

  it('releases the lock after a failed sync', async () => {
    source.items = [item('a.md', 'alpha')];
    source.failAt = 0;
    await expect(engine.sync('acme', docs)).rejects.toThrow();
    source.failAt = undefined;
    expect(await engine.sync('acme', docs)).toEqual({ added: 1, updated: 0, unchanged: 0, removed: 0 });
  });
});

describe('MemorySourceLock', () => {
  it('runs a task under a key and refuses the same key until it finishes', async () => {
    const lock = new MemorySourceLock();
    const gate = Promise.withResolvers<string>();
    const held = lock.tryWith('k', () => gate.promise);
    expect(await lock.tryWith('k', () => Promise.resolve('second'))).toBeUndefined();
    expect(await lock.tryWith('other', () => Promise.resolve('other'))).toBe('other');
    gate.resolve('first');
    expect(await held).toBe('first');
    expect(await lock.tryWith('k', () => Promise.resolve('third'))).toBe('third');
    await expect(lock.tryWith('k', () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await lock.tryWith('k', () => Promise.resolve('after failure'))).toBe('after failure');
  });
});
