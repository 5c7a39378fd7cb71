// Where audit records go (issue 29, docs/audit.md, docs/decisions.md): JSON lines on stderr (the
// application log keeps stdout) or in a file rotated by size. Separate from pino on purpose: the
// audit trail has its own schema, retention and readers. A request only enqueues its line: one
// write is in flight at a time, off the request path; a sink that is slow or failing makes records
// wait up to `queueBytes`, then they are dropped and counted (`agw.audit.dropped`), never a request
// failed or held. A file that cannot be opened is tried again at most once a second. Lines wait up
// to FLUSH_MS (or until FLUSH_BYTES are queued) and go out as one write (issue 45: a write per
// request cost ~25 µs of CPU at concurrency 1); closing writes what waits at once.
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
/** How long a line may wait for others to share its write, and how many bytes end the wait. */
export const FLUSH_MS = 20;
const FLUSH_BYTES = 16 * 1024;
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
      // A batch is cut at line ends so that no file passes maxFileBytes; a line longer than a whole
      // file is written alone in a fresh one.
      let offset = 0;
      while (offset < bytes.length) {
        const file = await ensureOpen();
        const room = options.maxFileBytes - size;
        let end = bytes.length;
        if (end - offset > room) {
          const cut = room > 0 ? bytes.lastIndexOf(0x0a, offset + room - 1) : -1;
          if (cut >= offset) end = cut + 1;
          else if (size > 0) {
            await rotate();
            continue;
          } else {
            const lineEnd = bytes.indexOf(0x0a, offset);
            end = lineEnd < 0 ? bytes.length : lineEnd + 1;
          }
        }
        try {
          let at = offset;
          while (at < end) at += (await file.write(bytes, at, end - at)).bytesWritten;
          size += end - offset;
          offset = end;
        } catch (error) {
          // A failed write may leave a bad descriptor (a deleted directory, a full disk): reopen later.
          await file.close().catch(() => undefined);
          handle = undefined;
          retryAt = Date.now() + RETRY_OPEN_MS;
          throw error;
        }
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
  /** Ends the wait before the next write (a full batch, or close). */
  private flushNow: (() => void) | undefined;
  private closed = false;

  constructor(
    private readonly target: Target,
    private readonly queueBytes: number,
    private readonly onDrop: (reason: DropReason, records: number) => void = countDrop,
    private readonly flushMs = FLUSH_MS,
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
    this.draining ??= this.drain();
    if (this.queuedBytes >= FLUSH_BYTES) this.flushNow?.();
  }

  private async drain(): Promise<void> {
    // Let lines gather for one write: a short wait, ended early by a full batch or by close.
    if (!this.closed)
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.flushMs);
        timer.unref();
        this.flushNow = () => {
          clearTimeout(timer);
          resolve();
        };
      });
    this.flushNow = undefined;
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      this.queuedBytes = 0;
      count('agw.audit.records', { sink: this.target.label }, batch.length);
      try {
        await this.target.write(Buffer.from(batch.join(''), 'utf8'));
      } catch {
        this.onDrop('write_failed', batch.length);
      }
    }
    this.draining = undefined;
  }

  /** Writes what waits up to the deadline, then closes the target. */
  async close(deadlineMs = 2000): Promise<void> {
    this.closed = true;
    this.flushNow?.();
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
