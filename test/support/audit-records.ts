// The audit trail a test gateway writes (issue 29), read back with the product's own schema: every
// record so far, and the one record of a response's request once its asynchronous write has landed.
import { expect } from 'vitest';
import { readFile } from 'node:fs/promises';
import { AuditRecordSchema, type AuditRecord } from '../../gateway/telemetry/audit-record.js';
import { until } from './until.js';

/** Every record in the file at `path` (none while the file does not exist yet). */
export async function auditRecords(path: string): Promise<AuditRecord[]> {
  const text = await readFile(path, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => AuditRecordSchema.parse(JSON.parse(line)));
}

/** The one record of the response's request (waits for the write; a second record for it fails). */
export async function auditRecordOf(path: string, response: Response): Promise<AuditRecord> {
  const id = response.headers.get('x-request-id');
  expect(id).toBeTruthy();
  await response.arrayBuffer().catch(() => undefined);
  return until(`the audit record of ${id}`, async () => {
    const found = (await auditRecords(path)).filter((record) => record.request_id === id);
    if (found.length > 1) throw new Error(`${found.length} records for ${id}`);
    return found[0];
  });
}
