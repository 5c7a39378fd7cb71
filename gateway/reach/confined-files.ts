// Enforces the files half of the reach policy (D19): a files data source's directory must lie, as
// written and after every symbolic link, inside an allowed root; each file is opened first and its
// real location read back from the open descriptor (/proc/self/fd), so a symlink, or a directory
// renamed or swapped between the walk and the read, cannot lead a read outside the source's root.
import { constants } from 'node:fs';
import { open, readlink, realpath } from 'node:fs/promises';
import { ReachDeniedError } from './reach-denied-error.js';
import { isWithin, type ReachPolicy, type ReachScope } from './reach-policy.js';

/** Where a files source may read: its real root, and whether the policy bounds it at all. */
export interface FileConfinement {
  /** The source directory after every symbolic link; every file read must be below it. */
  readonly realRoot: string;
}

/** Checks a source's `path` against the policy (when there is one) and returns its real root. */
export async function confineRoot(
  path: string,
  bounds: { readonly policy: ReachPolicy; readonly scope: ReachScope } | undefined,
): Promise<FileConfinement> {
  if (bounds !== undefined) {
    const text = bounds.policy.decidePathText(bounds.scope, path);
    if (!text.allowed) throw new ReachDeniedError(text.reason, path);
  }
  const realRoot = await realpath(path);
  if (bounds !== undefined) {
    const realRoots: string[] = [];
    for (const root of bounds.policy.rootsFor(bounds.scope)) {
      const real = await realpath(root).catch(() => undefined);
      if (real !== undefined) realRoots.push(real);
    }
    if (!realRoots.some((root) => isWithin(realRoot, root)))
      throw new ReachDeniedError('path-escapes-root', path);
  }
  return { realRoot };
}

const OPEN_FLAGS = constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK;

/** Where an open descriptor really points (Linux); undefined where /proc is not there. */
async function descriptorPath(fd: number): Promise<string | undefined> {
  return readlink(`/proc/self/fd/${fd}`).catch(() => undefined);
}

export type ConfinedRead =
  | { readonly kind: 'read'; readonly bytes: Buffer; readonly mtime: Date }
  | { readonly kind: 'skipped'; readonly why: 'too-large' | 'not-a-file' | 'outside-root' };

/** Reads one regular file if it really lies below the confinement's root and is at most maxBytes. */
export async function readConfined(
  file: string,
  confinement: FileConfinement,
  maxBytes: number,
): Promise<ConfinedRead> {
  // O_NOFOLLOW refuses a symlink as the last component; O_NONBLOCK keeps a FIFO from blocking us.
  const handle = await open(file, OPEN_FLAGS);
  try {
    const real = (await descriptorPath(handle.fd)) ?? (await realpath(file));
    if (!isWithin(real, confinement.realRoot)) return { kind: 'skipped', why: 'outside-root' };
    const info = await handle.stat();
    if (!info.isFile()) return { kind: 'skipped', why: 'not-a-file' };
    if (info.size > maxBytes) return { kind: 'skipped', why: 'too-large' };
    const bytes = await handle.readFile();
    // The file may have grown between stat and read.
    if (bytes.length > maxBytes) return { kind: 'skipped', why: 'too-large' };
    return { kind: 'read', bytes, mtime: info.mtime };
  } finally {
    await handle.close();
  }
}
