// POST /agent/sources/{id}/refresh on a data source answers 202 at once (issue 39); a test that wants
// the outcome follows GET /agent/sources/{id} (the 202's Location) until the source stops syncing, as
// a client would, and reads the record there (status, documents, last_added…).
import { expect } from 'vitest';
import { until } from './until.js';

export type SourceRow = Record<string, unknown>;

/** Refreshes a data source and waits for the sync it started (and its embedding pass) to end. */
export async function refreshAndWait(
  url: string,
  key: string,
  source: string,
  timeoutMs = 60_000,
): Promise<{ accepted: { source: SourceRow; sync: string }; source: SourceRow }> {
  const response = await fetch(`${url}/agent/sources/${source}/refresh?response_format=json`, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}` },
  });
  expect(response.status).toBe(202);
  expect(response.headers.get('location')).toBe(`/agent/sources/${source}`);
  const accepted = (await response.json()) as { source: SourceRow; sync: string; follow: string };
  expect(accepted.follow).toBe(`/agent/sources/${source}`);
  expect(accepted.source['status']).toBe('syncing');
  const settled = await until(
    `${source} to finish syncing`,
    async () => {
      const followed = await fetch(`${url}${accepted.follow}?response_format=json`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(followed.status).toBe(200);
      const row = ((await followed.json()) as { source: SourceRow }).source;
      return row['status'] === 'syncing' ? undefined : row;
    },
    timeoutMs,
    50,
  );
  return { accepted, source: settled };
}
