// The files connector follows changes (issue 4): with `watch` (the default) a file written under the
// source's directory becomes searchable without a refresh call and long before the sync schedule;
// with `watch: false` only the schedule or a refresh picks it up. Changes under excluded paths do
// not trigger a sync.
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { keyRecord, newKey } from '../support/gateway-document.js';
import { startWorkspace, type Harness } from '../support/gateway-harness.js';
import { refreshAndWait } from '../support/refresh-source.js';

const key = newKey();
let h: Harness;
let watched: string;
let unwatched: string;
const DAY = 86_400_000;

async function titles(query: string, connector: string): Promise<string[]> {
  const response = await fetch(`${h.url}/agent/search`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
    body: JSON.stringify({ query, connector_id: connector, options: { response_format: 'json' } }),
  });
  return ((await response.json()) as { results: { title: string }[] }).results.map((r) => r.title);
}

async function eventually(check: () => Promise<boolean>): Promise<boolean> {
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

async function syncedOnce(source: string): Promise<Record<string, unknown>> {
  let state: Record<string, unknown> = {};
  await eventually(async () => {
    const body = (await (
      await fetch(`${h.url}/agent/sources?response_format=json`, {
        headers: { authorization: `Bearer ${key.key}` },
      })
    ).json()) as { sources: Record<string, unknown>[] };
    state = body.sources.find((s) => s['id'] === source) ?? {};
    return state['status'] === 'ready';
  });
  return state;
}

beforeAll(async () => {
  watched = await mkdtemp(join(tmpdir(), 'agw-watch-'));
  unwatched = await mkdtemp(join(tmpdir(), 'agw-nowatch-'));
  await writeFile(join(watched, 'start.md'), '# Start\n\nThe first file.\n');
  await writeFile(join(unwatched, 'start.md'), '# Start\n\nThe first file.\n');
  h = await startWorkspace({
    dataSources: [
      { name: 'watched', type: 'files', path: watched, syncIntervalMs: DAY },
      { name: 'unwatched', type: 'files', path: unwatched, syncIntervalMs: DAY, watch: false },
    ],
    keys: [keyRecord(key)],
  });
  await syncedOnce('watched');
  await syncedOnce('unwatched');
});

afterAll(async () => {
  await h?.stop();
  await rm(watched, { recursive: true, force: true });
  await rm(unwatched, { recursive: true, force: true });
});

describe('files connector follows changes', () => {
  it('knowledge:files-watch — a new or changed file is indexed without a refresh', async () => {
    await mkdir(join(watched, 'deep', 'er'), { recursive: true });
    await writeFile(
      join(watched, 'deep', 'er', 'ibis.md'),
      '# Ibis runbook\n\nThe ibis migration runs nightly.\n',
    );
    expect(
      await eventually(async () => (await titles('ibis migration', 'watched')).includes('Ibis runbook')),
    ).toBe(true);
    await writeFile(
      join(watched, 'deep', 'er', 'ibis.md'),
      '# Ibis runbook\n\nThe ibis migration now runs hourly.\n',
    );
    expect(
      await eventually(async () => {
        const response = await fetch(`${h.url}/agent/search`, {
          method: 'POST',
          headers: { authorization: `Bearer ${key.key}`, 'content-type': 'application/json' },
          body: JSON.stringify({ query: 'ibis hourly', options: { response_format: 'json' } }),
        });
        const body = (await response.json()) as { results: { snippet: string }[] };
        return body.results.some((r) => r.snippet.includes('hourly'));
      }),
    ).toBe(true);
  });

  it('knowledge:files-watch — with watch off, a change waits for the schedule or a refresh', async () => {
    await writeFile(join(unwatched, 'stork.md'), '# Stork notes\n\nThe stork exporter is manual.\n');
    // Well past the change delay (300 ms) a watched source would have synced; this one must not.
    await new Promise((r) => setTimeout(r, 1_500));
    expect(await titles('stork exporter', 'unwatched')).toEqual([]);
    const writer = newKey();
    const revision = h.gateway.config.current().revision;
    await h.writeConfig({
      workspaces: [
        {
          name: 'demo',
          dataSources: [
            { name: 'watched', type: 'files', path: watched, syncIntervalMs: DAY },
            { name: 'unwatched', type: 'files', path: unwatched, syncIntervalMs: DAY, watch: false },
          ],
          keys: [keyRecord(key), keyRecord(writer, { access: 'write' })],
        },
      ],
    });
    await h.waitForRevision(revision);
    const refreshed = await refreshAndWait(h.url, writer.key, 'unwatched');
    expect(refreshed.source).toMatchObject({ status: 'ready', last_added: 1 });
    expect(await titles('stork exporter', 'unwatched')).toEqual(['Stork notes']);
  });
});
