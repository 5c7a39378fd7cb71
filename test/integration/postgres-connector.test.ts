// The `postgres` connector against a real PostgreSQL server (test/infra): a configured SQL query's
// rows become documents, synced incrementally; the query can only read (READ ONLY transaction, one
// statement, a cursor), runs under a statement timeout, and every failure is reported in
// /agent/sources with a message that carries neither the connection string nor row content.
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPostgres, type PostgresServer } from '../infra/postgres-server.js';
import { keyRecord, newKeys } from '../support/gateway-document.js';
import { startHarness, type Harness } from '../support/gateway-harness.js';
import { refreshAndWait } from '../support/refresh-source.js';

const [reader, writer] = newKeys(2);
let server: PostgresServer;
let admin: pg.Client;
let h: Harness;

const READER_PASSWORD = 'crm-reader-pw-5f1c';
const SECRET_ROW = 'confidential-walrus-ledger';
const columns = `id, subject AS title, body, 'https://crm.example.com/t/' || id AS url, updated_at`;

function url(user: string, password: string, database: string): string {
  return `postgresql://${user}:${password}@/${database}?host=${encodeURIComponent(server.admin.host)}&port=${server.admin.port}`;
}

async function sources(): Promise<Record<string, Record<string, unknown>>> {
  const response = await fetch(`${h.url}/agent/sources?response_format=json`, {
    headers: { authorization: `Bearer ${reader.key}` },
  });
  const body = (await response.json()) as { sources: Record<string, unknown>[] };
  return Object.fromEntries(body.sources.map((s) => [String(s['id']), s]));
}

async function settled(source: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    const state = (await sources())[source];
    if (state?.['status'] === 'ready' || state?.['status'] === 'unavailable' || Date.now() > deadline)
      return state ?? {};
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Refreshes a source (202), follows it until done, and reads what the sync changed from the record. */
async function refresh(source: string): Promise<{ source: Record<string, unknown>; sync: unknown }> {
  const { source: row } = await refreshAndWait(h.url, writer.key, source);
  return {
    source: row,
    sync: {
      added: row['last_added'],
      updated: row['last_updated'],
      unchanged: row['last_unchanged'],
      removed: row['last_removed'],
    },
  };
}

async function search(query: string, connector: string) {
  const response = await fetch(`${h.url}/agent/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${reader.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, connector_id: connector, options: { response_format: 'json' } }),
  });
  return (
    (await response.json()) as {
      results: { doc_id: string; title: string; url: string; updated_at: string; source_type: string }[];
    }
  ).results;
}

async function ticketCount(): Promise<number> {
  const { rows } = await admin.query<{ n: number }>('SELECT count(*)::int AS n FROM tickets');
  return rows[0]?.n ?? -1;
}

beforeAll(async () => {
  server = startPostgres();
  const bootstrap = new pg.Client(server.admin);
  await bootstrap.connect();
  await bootstrap.query('CREATE DATABASE crm');
  await bootstrap.end();
  admin = new pg.Client({ ...server.admin, database: 'crm' });
  await admin.connect();
  await admin.query(`
    CREATE TABLE tickets (id int PRIMARY KEY, subject text NOT NULL, body text NOT NULL, updated_at timestamptz NOT NULL);
    CREATE SEQUENCE side_effects;
    CREATE ROLE crm_reader LOGIN PASSWORD '${READER_PASSWORD}';
    GRANT SELECT ON tickets TO crm_reader;
    GRANT USAGE ON SEQUENCE side_effects TO crm_reader;`);
  const rows = Array.from({ length: 9 }, (_, i) => [
    i + 1,
    `Ticket ${i + 1}`,
    i === 4
      ? `The narwhal exporter truncates ${SECRET_ROW} at midnight.`
      : `Routine request number ${i + 1}.`,
    `2026-11-0${i + 1}T10:00:00Z`,
  ]);
  for (const row of rows) await admin.query('INSERT INTO tickets VALUES ($1, $2, $3, $4)', row);

  const dataSource = (name: string, query: string, extra: Record<string, unknown> = {}) => ({
    name,
    type: 'postgres',
    connectionString: { env: 'CRM_URL' },
    query,
    ...extra,
  });
  h = await startHarness(
    {
      workspaces: [
        {
          name: 'demo',
          dataSources: [
            // batchSize 2 makes the cursor fetch five times for nine rows.
            dataSource('crm', `SELECT ${columns} FROM tickets ORDER BY id;`, { batchSize: 2 }),
            dataSource('missing-columns', 'SELECT id, subject FROM tickets'),
            dataSource('capped', `SELECT ${columns} FROM tickets ORDER BY id`, { maxRows: 3, batchSize: 2 }),
            dataSource('no-table', `SELECT ${columns} FROM tickets_archive`),
            dataSource('slow', `SELECT ${columns}, pg_sleep(3) FROM tickets`, { timeoutMs: 200 }),
            dataSource('sequence', `SELECT ${columns} FROM tickets WHERE nextval('side_effects') > 0`),
            // Run as the owner, so only the connector's own guards stand between the query and a write.
            {
              ...dataSource('smuggled', `SELECT ${columns} FROM tickets; DELETE FROM tickets`),
              connectionString: { env: 'CRM_OWNER_URL' },
            },
            {
              ...dataSource(
                'cte-delete',
                `WITH gone AS (DELETE FROM tickets RETURNING *) SELECT ${columns} FROM gone`,
              ),
              connectionString: { env: 'CRM_OWNER_URL' },
            },
            {
              ...dataSource('wrong-db', `SELECT ${columns} FROM tickets`),
              connectionString: { env: 'NO_DB_URL' },
            },
          ],
          keys: [keyRecord(reader), keyRecord(writer, { access: 'write' })],
        },
      ],
    },
    {
      CRM_URL: url('crm_reader', READER_PASSWORD, 'crm'),
      CRM_OWNER_URL: url('postgres', 'owner-pw-unused', 'crm'),
      NO_DB_URL: url('crm_reader', READER_PASSWORD, 'crm_nope'),
    },
  );
}, 60_000);

afterAll(async () => {
  await h?.stop();
  await admin?.end();
  server?.stop();
});

describe('postgres connector', () => {
  it('knowledge:postgres-connector — every row of the query is a document with its mapped columns', async () => {
    expect(await settled('crm')).toMatchObject({
      status: 'ready',
      type: 'postgres',
      documents: 9,
      last_error: null,
    });
    const results = await search('narwhal exporter midnight', 'crm');
    expect(results[0]).toMatchObject({
      title: 'Ticket 5',
      url: 'https://crm.example.com/t/5',
      source_type: 'postgres',
      updated_at: '2026-11-05T10:00:00.000Z',
    });
  });

  it('knowledge:postgres-incremental — a re-sync adds, updates and removes rows by content hash', async () => {
    await settled('crm');
    const before = (await search('routine request number 2', 'crm')).find((r) => r.title === 'Ticket 2');
    expect(before).toBeDefined();
    await admin.query("UPDATE tickets SET body = 'The heron importer now validates dates.' WHERE id = 3");
    await admin.query('DELETE FROM tickets WHERE id = 9');
    await admin.query(
      "INSERT INTO tickets VALUES (10, 'Ticket 10', 'Kestrel dashboards load slowly.', '2026-11-10T10:00:00Z')",
    );
    const { source, sync } = await refresh('crm');
    expect(sync).toEqual({ added: 1, updated: 1, unchanged: 7, removed: 1 });
    expect(source).toMatchObject({ status: 'ready', documents: 9 });
    expect((await search('heron importer validates', 'crm'))[0]?.title).toBe('Ticket 3');
    expect((await search('kestrel dashboards', 'crm'))[0]?.title).toBe('Ticket 10');
    expect((await search('routine request number 9', 'crm')).some((r) => r.title === 'Ticket 9')).toBe(false);
    const after = (await search('routine request number 2', 'crm')).find((r) => r.title === 'Ticket 2');
    expect(after?.doc_id).toBe(before?.doc_id);
  });

  it('knowledge:postgres-read-only — a query cannot write, even through the owner role', async () => {
    const tickets = await ticketCount();
    expect(tickets).toBeGreaterThan(0);
    const states = {
      smuggled: await settled('smuggled'),
      cte: await settled('cte-delete'),
      sequence: await settled('sequence'),
    };
    // The extended protocol refuses the second statement (42601); a data-modifying WITH cannot back
    // a cursor (0A000); nextval is refused in a read-only transaction (25006).
    expect(states.smuggled).toMatchObject({
      status: 'unavailable',
      documents: 0,
      last_error: 'the database refused the sync query: SQLSTATE 42601',
    });
    expect(states.cte).toMatchObject({ status: 'unavailable', documents: 0 });
    expect(states.cte['last_error']).toMatch(/^the database refused the sync query: SQLSTATE [0-9A-Z]{5}$/);
    expect(states.sequence).toMatchObject({
      status: 'unavailable',
      last_error: 'the database refused the sync query: SQLSTATE 25006',
    });
    expect(await ticketCount()).toBe(tickets);
    const { rows } = await admin.query<{ is_called: boolean }>('SELECT is_called FROM side_effects');
    expect(rows[0]?.is_called).toBe(false);
  });

  it('knowledge:postgres-errors — bad columns, a missing table, a timeout, a wrong database and a cap are reported safely', async () => {
    expect(await settled('missing-columns')).toMatchObject({
      status: 'unavailable',
      last_error: 'the sync query must return the columns id, title and body; missing: title, body',
    });
    expect(await settled('no-table')).toMatchObject({
      last_error: 'the database refused the sync query: SQLSTATE 42P01',
    });
    expect(await settled('slow')).toMatchObject({
      last_error: 'the database refused the sync query: SQLSTATE 57014',
    });
    expect(await settled('wrong-db')).toMatchObject({
      last_error: 'could not connect to the database: SQLSTATE 3D000',
    });
    // A listing cut short by maxRows fails instead of deleting what lies past the cap.
    expect(await settled('capped')).toMatchObject({
      status: 'unavailable',
      documents: 3,
      last_error: 'the sync query returned more than maxRows (3) rows; raise maxRows',
    });
    // A failing source leaves the others searchable.
    expect((await search('kestrel dashboards', 'crm'))[0]?.title).toBe('Ticket 10');
    const everything = JSON.stringify(await sources()) + h.logs.join('\n');
    for (const secret of [READER_PASSWORD, 'owner-pw-unused', SECRET_ROW, 'tickets_archive'])
      expect(everything.includes(secret), secret).toBe(false);
  });
});
