// The audit sink (issue 29): JSON lines in a file rotated by size, a bounded queue in front, and a
// failing target that drops and counts instead of failing or holding the writer.
import { mkdtemp, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { buildAuditRecord } from '../../../gateway/telemetry/audit-record.js';
import { createAuditSink, LineAuditSink, type DropReason } from '../../../gateway/telemetry/audit-sink.js';

const record = (id: number) =>
  buildAuditRecord({
    startedAt: Date.now(),
    requestId: `req-${id}`,
    face: 'rest',
    method: 'GET /agent/tools',
    status: 200,
    durationMs: 1,
  });

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agw-audit-'));
  dirs.push(dir);
  return dir;
}

const settings = { maxFileBytes: 4096, maxFiles: 2, queueBytes: 1024 * 1024 };

describe('audit sink', () => {
  it('writes one JSON line per record to the file, in order', async () => {
    const path = join(await tempDir(), 'audit.log');
    const sink = createAuditSink({ sink: 'file', path, ...settings, maxFileBytes: 1024 * 1024 });
    for (let i = 0; i < 50; i += 1) sink.write(record(i));
    await sink.close();
    const lines = (await readFile(path, 'utf8')).trimEnd().split('\n');
    expect(lines.map((line) => (JSON.parse(line) as { request_id: string }).request_id)).toEqual(
      Array.from({ length: 50 }, (_, i) => `req-${i}`),
    );
  });

  it('rotates before the file passes maxFileBytes and keeps maxFiles old ones', async () => {
    const dir = await tempDir();
    const path = join(dir, 'audit.log');
    const sink = createAuditSink({ sink: 'file', path, ...settings });
    for (let i = 0; i < 400; i += 1) {
      sink.write(record(i));
      if (i % 20 === 0) await new Promise((resolve) => setTimeout(resolve, 5));
    }
    await sink.close();
    expect((await readdir(dir)).sort()).toEqual(['audit.log', 'audit.log.1', 'audit.log.2']);
    for (const name of ['audit.log', 'audit.log.1', 'audit.log.2']) {
      const text = await readFile(join(dir, name), 'utf8');
      expect(Buffer.byteLength(text)).toBeLessThanOrEqual(4096);
      for (const line of text.trimEnd().split('\n')) expect(() => JSON.parse(line) as unknown).not.toThrow();
    }
    // The newest record is in the live file.
    expect(await readFile(path, 'utf8')).toContain('"req-399"');
  });

  it('audit:sink-failure — an unwritable path drops and counts, and write never throws', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'not-a-dir'), '');
    const drops: [DropReason, number][] = [];
    const sink = createAuditSink(
      { sink: 'file', path: join(dir, 'not-a-dir', 'audit.log'), ...settings },
      (reason, records) => drops.push([reason, records]),
    );
    const started = performance.now();
    for (let i = 0; i < 100; i += 1) expect(() => sink.write(record(i))).not.toThrow();
    expect(performance.now() - started).toBeLessThan(1000);
    await sink.close();
    expect(drops.every(([reason]) => reason === 'write_failed')).toBe(true);
    expect(drops.reduce((sum, [, n]) => sum + n, 0)).toBe(100);
  });

  it('a full queue drops the newest records instead of growing', async () => {
    const path = join(await tempDir(), 'audit.log');
    const drops: DropReason[] = [];
    // One file holds them all (the rotation test covers rotation): every record kept is in it.
    const sink = createAuditSink(
      { sink: 'file', path, ...settings, maxFileBytes: 1024 * 1024, queueBytes: 64 * 1024 },
      (reason) => drops.push(reason),
    );
    // Written in one turn: nothing drains until the loop ends.
    for (let i = 0; i < 2000; i += 1) sink.write(record(i));
    await sink.close();
    expect(drops.length).toBeGreaterThan(0);
    expect(drops.every((reason) => reason === 'queue_full')).toBe(true);
    const kept = (await readFile(path, 'utf8')).trimEnd().split('\n').length;
    expect(kept + drops.length).toBe(2000);
  });

  it('audit:sink-batching — lines written within the wait go out in one write; close writes what waits without the wait; the wait ends by itself', async () => {
    const writes: string[] = [];
    const target = {
      label: 'stderr' as const,
      write: (bytes: Buffer) => {
        writes.push(bytes.toString('utf8'));
        return Promise.resolve();
      },
      close: () => Promise.resolve(),
    };
    // A wait far longer than the test: only close can end it.
    const sink = new LineAuditSink(target, 1024 * 1024, () => undefined, 60_000);
    for (let i = 0; i < 3; i += 1) {
      sink.write(record(i));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    expect(writes).toEqual([]);
    await sink.close();
    expect(writes).toHaveLength(1);
    expect(
      writes[0]
        ?.trimEnd()
        .split('\n')
        .map((line) => (JSON.parse(line) as { request_id: string }).request_id),
    ).toEqual(['req-0', 'req-1', 'req-2']);

    const timed = new LineAuditSink(target, 1024 * 1024, () => undefined, 30);
    timed.write(record(9));
    for (let waited = 0; writes.length < 2 && waited < 5000; waited += 10)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(writes[1]).toContain('"req-9"');
    await timed.close();
  });
});
