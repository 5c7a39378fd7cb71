// Where audit records go (issue 29, docs/audit.md, docs/decisions.md): JSON lines on stderr (the
// application log keeps stdout) or in a file rotated by size. Separate from pino on purpose: the
// audit trail has its own schema, retention and readers. A request only enqueues its line: one
// write is in flight at a time, off the request path; a sink that is slow or failing makes records
// wait up to `queueBytes`, then they are dropped and counted (`agw.audit.dropped`), never a request
// failed or held. A file that cannot be opened is tried again at most once a second.
import { write as writeFd } from 'node:fs';
import { open, rename, rm, stat, type FileHandle } from 'node:fs/promises';
import type { AuditRecord } from './audit-record.js';
import { count } from './metrics.js';

/** The audit port: `write` never throws and never waits; `close` flushes within a deadline. */
export interface AuditSink {
  write(record: AuditRecord): void;
  close(deadlineMs?: number): Promise<void>;
}

export type DropReason = 'queue_full' | 'write_failed';

/** The in-memory twin, for unit tests. */
export class MemoryAuditSink implements AuditSink {
  readonly records: AuditRecord[] = [];
  write(record: AuditRecord): void {
    this.records.push(record);
  }
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** Where a line-writing sink puts its bytes. */
interface Target {
  readonly label: 'stderr' | 'file';
  /** Writes the whole buffer or throws. */
  write(bytes: Buffer): Promise<void>;
  close(): Promise<void>;
}

const RETRY_OPEN_MS = 1000;
const EAGAIN_WAIT_MS = 20;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms).unref());

/** Writes to a file descriptor the process owns (stderr), retrying while a pipe is full. */
function fdTarget(fd: number): Target {
  const once = (bytes: Buffer) =>
    new Promise<number>((resolve, reject) => {
      writeFd(fd, bytes, 0, bytes.length, null, (error, written) =>
        error ? reject(error) : resolve(written),
      );
    });
  return {
    label: 'stderr',
    async write(bytes) {
      let offset = 0;
      while (offset < bytes.length) {
        try {
          offset += await once(bytes.subarray(offset));
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EAGAIN') throw error;
          await sleep(EAGAIN_WAIT_MS);
        }
      }
    },
    close: () => Promise.resolve(),
  };
}

export interface FileTargetOptions {
  readonly path: string;
  readonly maxFileBytes: number;
  readonly maxFiles: number;
}

/** Appends to a file, renaming it to `<path>.1` (and older ones up to `.maxFiles`) before a write
 * would take it past `maxFileBytes`. */
function fileTarget(options: FileTargetOptions): Target {
  let handle: FileHandle | undefined;
  let size = 0;
  let retryAt = 0;
  const ensureOpen = async (): Promise<FileHandle> => {
    if (handle !== undefined) return handle;
    if (Date.now() < retryAt) throw new Error('audit file unavailable');
    try {
      handle = await open(options.path, 'a', 0o640);
      size = (await handle.stat()).size;
      return handle;
    } catch (error) {
      retryAt = Date.now() + RETRY_OPEN_MS;
      throw error;
    }
  };
  const rotate = async () => {
    await handle?.close().catch(() => undefined);
    handle = undefined;
    await rm(`${options.path}.${options.maxFiles}`, { force: true });
    for (let index = options.maxFiles - 1; index >= 1; index -= 1) {
      const from = `${options.path}.${index}`;
      if (await stat(from).catch(() => undefined)) await rename(from, `${options.path}.${index + 1}`);
    }
    await rename(options.path, `${options.path}.1`);
  };
  return {
    label: 'file',
    async write(bytes) {
      let file = await ensureOpen();
      if (size > 0 && size + bytes.length > options.maxFileBytes) {
        await rotate();
        file = await ensureOpen();
      }
      try {
        let offset = 0;
        while (offset < bytes.length) offset += (await file.write(bytes, offset)).bytesWritten;
        size += bytes.length;
      } catch (error) {
        // A failed write may leave a bad descriptor (a deleted directory, a full disk): reopen later.
        await file.close().catch(() => undefined);
        handle = undefined;
        retryAt = Date.now() + RETRY_OPEN_MS;
        throw error;
      }
    },
    async close() {
      await handle?.close().catch(() => undefined);
      handle = undefined;
    },
  };
}

/** A bounded queue of lines in front of one target, drained one write at a time. */
export class LineAuditSink implements AuditSink {
  private queue: string[] = [];
  private queuedBytes = 0;
  private draining: Promise<void> | undefined;
  private closed = false;

  constructor(
    private readonly target: Target,
    private readonly queueBytes: number,
    private readonly onDrop: (reason: DropReason, records: number) => void = countDrop,
  ) {}

  write(record: AuditRecord): void {
    if (this.closed) return;
    const line = `${JSON.stringify(record)}\n`;
    const bytes = Buffer.byteLength(line);
    if (this.queuedBytes + bytes > this.queueBytes) {
      this.onDrop('queue_full', 1);
      return;
    }
    this.queue.push(line);
    this.queuedBytes += bytes;
    count('agw.audit.records', { sink: this.target.label });
    this.draining ??= this.drain();
  }

  private async drain(): Promise<void> {
    // Let the request that wrote first finish its turn; a burst goes out as one write.
    await new Promise<void>((resolve) => setImmediate(resolve));
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      this.queuedBytes = 0;
      try {
        await this.target.write(Buffer.from(batch.join(''), 'utf8'));
      } catch {
        this.onDrop('write_failed', batch.length);
      }
    }
    this.draining = undefined;
  }

  /** Waits for queued records up to the deadline, then closes the target. */
  async close(deadlineMs = 2000): Promise<void> {
    this.closed = true;
    const pending = this.draining;
    if (pending !== undefined) await Promise.race([pending, sleep(deadlineMs)]);
    await this.target.close();
  }
}

function countDrop(reason: DropReason, records: number): void {
  count('agw.audit.dropped', { reason }, records);
}

export interface AuditSinkSettings {
  readonly sink: 'stderr' | 'file';
  readonly path?: string | undefined;
  readonly maxFileBytes: number;
  readonly maxFiles: number;
  readonly queueBytes: number;
}

export function createAuditSink(
  settings: AuditSinkSettings,
  onDrop?: (reason: DropReason, records: number) => void,
): AuditSink {
  const target =
    settings.sink === 'file' && settings.path !== undefined
      ? fileTarget({ path: settings.path, maxFileBytes: settings.maxFileBytes, maxFiles: settings.maxFiles })
      : fdTarget(2);
  return new LineAuditSink(target, settings.queueBytes, onDrop);
}
