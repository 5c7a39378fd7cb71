// One contract for the three ConnectionRows stores of issue 42 — the memory twin, SQLite (a file,
// through node:sqlite) and PostgreSQL (a real throwaway server, the application role) — then what
// only some promise: PostgreSQL shared by two instances as two replicas (single use, one lock holder,
// the bounded wait, a lock session that dies), tables created by replicas starting together, and
// SQLite rows surviving a restart. Sealing the tokens is the vault's job; these rows carry opaque
// strings.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  ConnectionLockTimeout,
  MemoryConnectionRows,
  openConnectionRows,
  PgConnectionRows,
  SqliteConnectionRows,
  type ConnectionKey,
  type ConnectionRow,
  type ConnectionRows,
} from '../../gateway/connections/index.js';
import { createPinoLogger } from '../../gateway/telemetry/pino-logger.js';
import { allowAppTables, startPostgres, type PostgresServer } from '../infra/postgres-server.js';

let server: PostgresServer;
let dir: string;
const opened: ConnectionRows[] = [];
/** The clock consumed ids expire by, shared by every store (tests move it). */
let nowMs = Date.UTC(2026, 10, 29);
const now = () => nowMs;

function pgRows(options: { maxLockSessions?: number } = {}): Promise<PgConnectionRows> {
  return track(PgConnectionRows.open(server.app, { now, ...options }));
}

async function track<T extends ConnectionRows>(rows: Promise<T>): Promise<T> {
  const store = await rows;
  opened.push(store);
  return store;
}

beforeAll(async () => {
  server = startPostgres();
  // The application role owns its tables: it may create them in the public schema, nothing more.
  await allowAppTables(server);
  dir = mkdtempSync(join(tmpdir(), 'agw-connections-'));
}, 120_000);
afterAll(async () => {
  await Promise.all(opened.map((rows) => rows.close()));
  server?.stop();
  rmSync(dir, { recursive: true, force: true });
});

let unique = 0;
/** A workspace no other test uses (the PostgreSQL database is shared by the whole file). */
function workspace(): string {
  unique += 1;
  return `ws-${unique}-${Math.random().toString(36).slice(2, 8)}`;
}

function row(
  key: ConnectionKey,
  sealed: string,
  extra: Partial<ConnectionRow['summary']> = {},
): ConnectionRow {
  return { sealed, summary: { ...key, issuer: 'https://as.example', connectedAtMs: 1_000, ...extra } };
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs `count` tasks on the same key through the given stores (round robin) and reports the most
 * that ran at once. */
async function mostAtOnce(stores: ConnectionRows[], key: ConnectionKey, count: number): Promise<number> {
  let active = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: count }, (_, i) =>
      (stores[i % stores.length] as ConnectionRows).exclusive(key, 10_000, async () => {
        active += 1;
        most = Math.max(most, active);
        await sleep(20);
        active -= 1;
      }),
    ),
  );
  return most;
}

const STORES: [string, () => Promise<ConnectionRows>][] = [
  ['memory', () => track(Promise.resolve(new MemoryConnectionRows({ now })))],
  ['sqlite', () => track(Promise.resolve(new SqliteConnectionRows(join(dir, `${workspace()}.db`), { now })))],
  ['postgres', () => pgRows()],
];

describe.each(STORES)('ConnectionRows contract: %s', (_name, open) => {
  let rows: ConnectionRows;
  beforeAll(async () => {
    rows = await open();
  });

  it('puts, gets and replaces a row by (workspace, principal, source)', async () => {
    const ws = workspace();
    const key = { workspace: ws, principal: 'alice', source: 'github' };
    expect(await rows.get(key)).toBeUndefined();
    await rows.put(key, row(key, 'sealed-1', { scope: 'repo', expiresAtMs: 5_000 }));
    expect(await rows.get(key)).toEqual(row(key, 'sealed-1', { scope: 'repo', expiresAtMs: 5_000 }));
    await rows.put(key, row(key, 'sealed-2', { refreshedAtMs: 2_000 }));
    const replaced = await rows.get(key);
    expect(replaced?.sealed).toBe('sealed-2');
    expect(replaced?.summary).toEqual({
      ...key,
      issuer: 'https://as.example',
      connectedAtMs: 1_000,
      refreshedAtMs: 2_000,
      scope: undefined,
      expiresAtMs: undefined,
    });
    for (const other of [
      { ...key, principal: 'bob' },
      { ...key, source: 'gitlab' },
      { ...key, workspace: workspace() },
    ])
      expect(await rows.get(other)).toBeUndefined();
  });

  it("lists one principal's connections in one workspace, by source, without the sealed grant", async () => {
    const ws = workspace();
    const elsewhere = workspace();
    for (const [w, principal, source] of [
      [ws, 'alice', 'linear'],
      [ws, 'alice', 'github'],
      [ws, 'bob', 'github'],
      [elsewhere, 'alice', 'jira'],
    ] as const)
      await rows.put(
        { workspace: w, principal, source },
        row({ workspace: w, principal, source }, 'token-blob'),
      );
    const listed = await rows.list(ws, 'alice');
    expect(listed.map((s) => s.source)).toEqual(['github', 'linear']);
    expect(listed.every((s) => s.workspace === ws && s.principal === 'alice')).toBe(true);
    expect(JSON.stringify(listed)).not.toContain('token-blob');
    expect(await rows.list(ws, 'carol')).toEqual([]);
  });

  it('removes by workspace, principal, source or both, and says how many rows went', async () => {
    const ws = workspace();
    const other = workspace();
    const seed = async () => {
      for (const w of [ws, other])
        for (const principal of ['alice', 'bob'])
          for (const source of ['github', 'linear'])
            await rows.put(
              { workspace: w, principal, source },
              row({ workspace: w, principal, source }, 's'),
            );
    };
    await seed();
    expect(await rows.remove({ workspace: ws, principal: 'alice', source: 'github' })).toBe(1);
    expect(await rows.remove({ workspace: ws, principal: 'alice' })).toBe(1);
    expect(await rows.remove({ workspace: ws, source: 'linear' })).toBe(1);
    expect(await rows.remove({ workspace: ws })).toBe(1);
    expect(await rows.remove({ workspace: ws })).toBe(0);
    expect((await rows.list(other, 'alice')).length + (await rows.list(other, 'bob')).length).toBe(4);
    await seed();
    expect(await rows.remove({ workspace: ws, source: 'github' })).toBe(2);
    expect(await rows.remove({ workspace: ws })).toBe(2);
    expect(await rows.remove({ workspace: other, principal: 'nobody' })).toBe(0);
  });

  it('consumes an id once until it expires; an expired id is forgotten, one already past is refused', async () => {
    const id = `state-${workspace()}`;
    expect(await rows.consumeOnce(id, nowMs + 60_000)).toBe(true);
    expect(await rows.consumeOnce(id, nowMs + 60_000)).toBe(false);
    expect(await rows.consumeOnce(`${id}-other`, nowMs + 60_000)).toBe(true);
    nowMs += 61_000;
    expect(await rows.consumeOnce(id, nowMs + 60_000)).toBe(true);
    expect(await rows.consumeOnce(`${id}-late`, nowMs)).toBe(false);
    expect(await rows.consumeOnce(`${id}-late`, nowMs - 1)).toBe(false);
  });

  it('keeps named values and replaces them', async () => {
    const name = `registration:${workspace()}`;
    expect(await rows.getValue(name)).toBeUndefined();
    await rows.putValue(name, 'sealed-a');
    expect(await rows.getValue(name)).toBe('sealed-a');
    await rows.putValue(name, 'sealed-b');
    expect(await rows.getValue(name)).toBe('sealed-b');
  });

  it('takes ids and names as the gateway makes them: parts joined with NUL, a long URL among them', async () => {
    const ws = workspace();
    const name = `registration\0${ws}\0saas\0https://as.example\0https://gw.example/${'p'.repeat(4_000)}`;
    await rows.putValue(name, 'sealed-a');
    await rows.putValue(`registration\0${ws}\0saas`, 'sealed-b');
    expect(await rows.getValue(name)).toBe('sealed-a');
    expect(await rows.getValue(`registration\0${ws}\0saas`)).toBe('sealed-b');
    expect(await rows.getValue(`registration\0${ws}`)).toBeUndefined();
    const id = `consent\0${ws}`;
    expect(await rows.consumeOnce(id, nowMs + 60_000)).toBe(true);
    expect(await rows.consumeOnce(id, nowMs + 60_000)).toBe(false);
    expect(await rows.consumeOnce(`consent\0${ws}\0other`, nowMs + 60_000)).toBe(true);
  });

  it('exclusive: tasks on one key never overlap and each gets its own result', async () => {
    const key = { workspace: workspace(), principal: 'alice', source: 'github' };
    expect(await mostAtOnce([rows], key, 6)).toBe(1);
    expect(await rows.exclusive(key, 1_000, () => Promise.resolve(42))).toBe(42);
  });

  it('exclusive: tasks on different keys run at the same time', async () => {
    const ws = workspace();
    let startedB!: () => void;
    const bStarted = new Promise<void>((resolve) => (startedB = resolve));
    const a = rows.exclusive({ workspace: ws, principal: 'alice', source: 'a' }, 1_000, async () => {
      // Finishes only once B has started: serialised keys would time out here.
      await Promise.race([bStarted, sleep(3_000).then(() => Promise.reject(new Error('B never started')))]);
      return 'a';
    });
    const b = rows.exclusive({ workspace: ws, principal: 'alice', source: 'b' }, 1_000, () => {
      startedB();
      return Promise.resolve('b');
    });
    expect(await Promise.all([a, b])).toEqual(['a', 'b']);
  });

  it('exclusive: a task that throws rejects with its error and frees the key', async () => {
    const key = { workspace: workspace(), principal: 'alice', source: 'github' };
    const failure = new Error('refresh refused');
    await expect(rows.exclusive(key, 1_000, () => Promise.reject(failure))).rejects.toBe(failure);
    expect(await rows.exclusive(key, 200, () => Promise.resolve('next'))).toBe('next');
  });

  it('exclusive: a wait past its bound rejects with ConnectionLockTimeout without running the task', async () => {
    const key = { workspace: workspace(), principal: 'alice', source: 'github' };
    let release!: () => void;
    const held = rows.exclusive(key, 1_000, () => new Promise<void>((resolve) => (release = resolve)));
    await sleep(50);
    let ran = false;
    const started = Date.now();
    const waited = rows.exclusive(key, 150, () => {
      ran = true;
      return Promise.resolve();
    });
    await expect(waited).rejects.toBeInstanceOf(ConnectionLockTimeout);
    expect(Date.now() - started).toBeGreaterThanOrEqual(140);
    expect(ran).toBe(false);
    // The one that gave up does not free the key: a third caller still waits for the holder.
    const third = rows.exclusive(key, 2_000, () => Promise.resolve(Date.now()));
    await sleep(100);
    const releasedAt = Date.now();
    release();
    await held;
    expect(await third).toBeGreaterThanOrEqual(releasedAt);
  });
});

describe('PostgreSQL ConnectionRows shared by replicas', () => {
  it('creates its tables when replicas start together on an empty database', async () => {
    // The contract above made the tables: drop them, then start four replicas at once.
    const owner = await pgRows();
    await owner.close();
    const admin = new pg.Client(server.admin);
    await admin.connect();
    await admin.query('DROP TABLE user_connections, user_connection_consumed, user_connection_values');
    await admin.end();
    const replicas = await Promise.all([pgRows(), pgRows(), pgRows(), pgRows()]);
    const key = { workspace: workspace(), principal: 'alice', source: 'github' };
    await replicas[0]?.put(key, row(key, 's'));
    expect((await replicas[3]?.get(key))?.sealed).toBe('s');
  });

  it('opens as a role that may only read and write the tables (no CREATE on the schema)', async () => {
    await pgRows(); // the tables, made by the role that may create them
    const admin = new pg.Client(server.admin);
    await admin.connect();
    await admin.query("CREATE ROLE agw_rw LOGIN PASSWORD 'agw_rw' NOSUPERUSER");
    await admin.query(
      'GRANT SELECT, INSERT, UPDATE, DELETE ON user_connections, user_connection_consumed, user_connection_values TO agw_rw',
    );
    await admin.end();
    const rows = await track(
      PgConnectionRows.open({ ...server.app, user: 'agw_rw', password: 'agw_rw' }, { now }),
    );
    const key = { workspace: workspace(), principal: 'alice', source: 'github' };
    await rows.put(key, row(key, 's'));
    expect(await rows.consumeOnce(`state-${key.workspace}`, nowMs + 1_000)).toBe(true);
    expect(await rows.remove({ workspace: key.workspace })).toBe(1);
  });

  it('consumes an id once across two replicas, also when they race', async () => {
    const [a, b] = [await pgRows(), await pgRows()];
    const id = `state-${workspace()}`;
    expect(await a.consumeOnce(id, nowMs + 60_000)).toBe(true);
    expect(await b.consumeOnce(id, nowMs + 60_000)).toBe(false);
    const raced = `raced-${workspace()}`;
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? a : b).consumeOnce(raced, nowMs + 60_000)),
    );
    expect(answers.filter(Boolean)).toHaveLength(1);
    nowMs += 61_000;
    expect(await b.consumeOnce(id, nowMs + 60_000)).toBe(true);
  });

  it('sees a revocation on one replica at the next read on the other', async () => {
    const [a, b] = [await pgRows(), await pgRows()];
    const key = { workspace: workspace(), principal: 'alice', source: 'github' };
    await a.put(key, row(key, 's'));
    expect(await b.get(key)).toBeDefined();
    expect(await b.remove({ workspace: key.workspace, principal: 'alice' })).toBe(1);
    expect(await a.get(key)).toBeUndefined();
  });

  it('exclusive: one holder per key across two replicas; a wait past its bound rejects', async () => {
    const [a, b] = [await pgRows(), await pgRows()];
    const key = { workspace: workspace(), principal: 'alice', source: 'github' };
    expect(await mostAtOnce([a, b], key, 8)).toBe(1);
    let release!: () => void;
    const held = a.exclusive(key, 1_000, () => new Promise<void>((resolve) => (release = resolve)));
    await sleep(100);
    await expect(b.exclusive(key, 150, () => Promise.resolve())).rejects.toBeInstanceOf(
      ConnectionLockTimeout,
    );
    release();
    await held;
    expect(await b.exclusive(key, 1_000, () => Promise.resolve('after'))).toBe('after');
  });

  it('exclusive: a task that throws on one replica frees the key for the other', async () => {
    const [a, b] = [await pgRows(), await pgRows()];
    const key = { workspace: workspace(), principal: 'alice', source: 'github' };
    await expect(a.exclusive(key, 1_000, () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    expect(await b.exclusive(key, 200, () => Promise.resolve('free'))).toBe('free');
  });

  it('exclusive: a timed-out wait gives its only lock session back, so the next wait gets its full bound', async () => {
    const a = await pgRows();
    const b = await pgRows({ maxLockSessions: 1 });
    const key = { workspace: workspace(), principal: 'alice', source: 'github' };
    let release!: () => void;
    let held = a.exclusive(key, 1_000, () => new Promise<void>((resolve) => (release = resolve)));
    await sleep(100);
    await expect(b.exclusive(key, 50, () => Promise.resolve())).rejects.toBeInstanceOf(ConnectionLockTimeout);
    release();
    await held;
    held = a.exclusive(key, 1_000, () => new Promise<void>((resolve) => (release = resolve)));
    await sleep(100);
    setTimeout(() => release(), 400);
    // B has one lock session: had the timed-out wait kept it, this wait would never get one.
    expect(await b.exclusive(key, 3_000, () => Promise.resolve('waited'))).toBe('waited');
    await held;
  });

  it('exclusive: a lock session that dies under its holder frees the key and does not end the process', async () => {
    const [a, b] = [await pgRows(), await pgRows()];
    const key = { workspace: workspace(), principal: 'alice', source: 'github' };
    const admin = new pg.Client(server.admin);
    await admin.connect();
    try {
      const result = await a.exclusive(key, 1_000, async () => {
        await admin.query(
          "SELECT pg_terminate_backend(pid) FROM pg_locks WHERE locktype = 'advisory' AND granted",
        );
        await sleep(100);
        return 'done';
      });
      expect(result).toBe('done');
      expect(await b.exclusive(key, 500, () => Promise.resolve('free'))).toBe('free');
      expect(await a.exclusive(key, 500, () => Promise.resolve('again'))).toBe('again');
    } finally {
      await admin.end();
    }
  });
});

describe('SQLite ConnectionRows across a restart', () => {
  it('keeps rows, values and consumed ids in its file, readable by its owner only', async () => {
    const path = join(dir, 'restart.db');
    const key = { workspace: 'acme', principal: 'alice', source: 'github' };
    const first = new SqliteConnectionRows(path, { now });
    await first.put(key, row(key, 'sealed', { scope: 'repo' }));
    await first.putValue('registration:https://as.example', 'client');
    expect(await first.consumeOnce('state-1', nowMs + 60_000)).toBe(true);
    await first.close();
    expect(statSync(path).mode & 0o077).toBe(0);

    const second = new SqliteConnectionRows(path, { now });
    try {
      expect(await second.get(key)).toEqual(row(key, 'sealed', { scope: 'repo' }));
      expect(await second.list('acme', 'alice')).toHaveLength(1);
      expect(await second.getValue('registration:https://as.example')).toBe('client');
      expect(await second.consumeOnce('state-1', nowMs + 60_000)).toBe(false);
    } finally {
      await second.close();
    }
  });
});

describe('openConnectionRows', () => {
  function capture(): { lines: string[]; logger: ReturnType<typeof createPinoLogger> } {
    const lines: string[] = [];
    return {
      lines,
      logger: createPinoLogger({ destination: { write: (line: string) => lines.push(line) } }),
    };
  }

  it('opens PostgreSQL when configured and logs the choice, never the connection string', async () => {
    const { app } = server;
    const url = `postgresql://${app.user}:${app.password}@/${app.database}?host=${encodeURIComponent(app.host)}&port=${app.port}`;
    const { lines, logger } = capture();
    const rows = await track(
      openConnectionRows(
        { sqlitePath: ':memory:', postgres: { connectionString: { env: 'AGW_CONNECTIONS_PG' } } },
        { readEnv: (name) => (name === 'AGW_CONNECTIONS_PG' ? url : undefined), readFile: () => '' },
        logger,
      ),
    );
    expect(rows).toBeInstanceOf(PgConnectionRows);
    const key = { workspace: workspace(), principal: 'alice', source: 'github' };
    await rows.put(key, row(key, 's'));
    expect((await (await pgRows()).get(key))?.sealed).toBe('s');
    expect(lines.join('')).toContain('"store":"postgres"');
    for (const fragment of [url, app.password, app.host]) expect(lines.join('')).not.toContain(fragment);
  });

  it('opens the SQLite file otherwise, and refuses a connection string it cannot read', async () => {
    const { lines, logger } = capture();
    const path = join(dir, 'opened.db');
    const rows = await track(
      openConnectionRows({ sqlitePath: path }, { readEnv: () => undefined, readFile: () => '' }, logger),
    );
    expect(rows).toBeInstanceOf(SqliteConnectionRows);
    expect(lines.join('')).toContain('"store":"sqlite"');
    await expect(
      openConnectionRows(
        { sqlitePath: ':memory:', postgres: { connectionString: { env: 'AGW_MISSING' } } },
        { readEnv: () => undefined, readFile: () => '' },
        logger,
      ),
    ).rejects.toThrow('secret env:AGW_MISSING is not available');
  });
});
