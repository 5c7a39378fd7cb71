// Confined file reads (issue 20, D19) in a real temporary tree: a source root must lie inside an
// allowed root as written and after symbolic links, and each file's real location is read back
// from its open descriptor, so a directory swapped for a symlink after the root was checked, a
// symlinked file or a FIFO lead nowhere. Each test builds its own tree under the allowed root.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantPolicySchema } from '../../../gateway/config/index.js';
import { confineRoot, readConfined, ReachDeniedError, ReachPolicy } from '../../../gateway/reach/index.js';

let base: string;
let outside: string;
let bounds: { policy: ReachPolicy; scope: { namespace: string; workspace: string } };
let counter = 0;

/** A fresh directory inside team-a's allowed root. */
async function freshDir(): Promise<string> {
  counter += 1;
  const dir = join(base, 'team-a', `case-${counter}`);
  await mkdir(dir, { recursive: true });
  return dir;
}

const hasMkfifo = (() => {
  try {
    execFileSync('mkfifo', ['--version'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'agw-confined-'));
  outside = await mkdtemp(join(tmpdir(), 'agw-confined-outside-'));
  await writeFile(join(outside, 'secret.md'), 'secret');
  await mkdir(join(base, 'team-a'), { recursive: true });
  await mkdir(join(base, 'team-b', 'docs'), { recursive: true });
  bounds = {
    policy: new ReachPolicy(
      TenantPolicySchema.parse({ files: { allowedRoots: [join(base, '{namespace}')] } }),
    ),
    scope: { namespace: 'team-a', workspace: 'acme' },
  };
});

afterAll(async () => {
  await rm(base, { recursive: true, force: true });
  await rm(outside, { recursive: true, force: true });
});

describe('confineRoot', () => {
  it('reach:confine-root — outside, dotted and symlinked roots are refused; a real root inside is accepted', async () => {
    const dir = await freshDir();
    await symlink(outside, join(dir, 'escape'));
    await symlink(join(base, 'team-b', 'docs'), join(dir, 'neighbour'));
    await expect(confineRoot(outside, bounds)).rejects.toMatchObject({
      reason: 'path-not-allowed',
      target: outside,
    });
    await expect(confineRoot(join(base, 'team-b', 'docs'), bounds)).rejects.toMatchObject({
      reason: 'path-not-allowed',
    });
    // '..' is refused as written, even where it would land inside the root.
    await expect(confineRoot(`${dir}/../${dir.split('/').at(-1)}`, bounds)).rejects.toMatchObject({
      reason: 'path-not-allowed',
    });
    await expect(confineRoot(`${base}/team-a/../team-b/docs`, bounds)).rejects.toMatchObject({
      reason: 'path-not-allowed',
    });
    // Symlinks inside the allowed root that lead out of it (elsewhere, or to another tenant).
    const escape = await confineRoot(join(dir, 'escape'), bounds).catch((e: unknown) => e);
    expect(escape).toBeInstanceOf(ReachDeniedError);
    expect(escape).toMatchObject({ reason: 'path-escapes-root', target: join(dir, 'escape') });
    await expect(confineRoot(join(dir, 'neighbour'), bounds)).rejects.toMatchObject({
      reason: 'path-escapes-root',
    });
    expect(await confineRoot(dir, bounds)).toEqual({ realRoot: dir });
    expect(await confineRoot(`${dir}/`, bounds)).toEqual({ realRoot: dir });
    expect(await confineRoot(join(base, 'team-a'), bounds)).toEqual({ realRoot: join(base, 'team-a') });
    // Without a policy (the embedded file without one) any existing directory is a root.
    expect(await confineRoot(outside, undefined)).toEqual({ realRoot: outside });
  });

  it('accepts a symlink that stays inside the allowed root, as its real directory', async () => {
    const dir = await freshDir();
    await mkdir(join(dir, 'real'));
    await symlink(join(dir, 'real'), join(dir, 'alias'));
    expect(await confineRoot(join(dir, 'alias'), bounds)).toEqual({ realRoot: join(dir, 'real') });
  });

  it('follows an allowed root that is itself a symlink (the admin mounted it that way)', async () => {
    const mounts = await mkdtemp(join(tmpdir(), 'agw-confined-mounts-'));
    try {
      const real = join(mounts, 'volume-a');
      await mkdir(join(real, 'docs'), { recursive: true });
      await symlink(real, join(mounts, 'team-a'));
      const linked = {
        policy: new ReachPolicy(
          TenantPolicySchema.parse({ files: { allowedRoots: [join(mounts, '{namespace}')] } }),
        ),
        scope: bounds.scope,
      };
      expect(await confineRoot(join(mounts, 'team-a', 'docs'), linked)).toEqual({
        realRoot: join(real, 'docs'),
      });
    } finally {
      await rm(mounts, { recursive: true, force: true });
    }
  });

  it('fails for a root that does not exist, with the file system error rather than a refusal', async () => {
    const error = await confineRoot(join(base, 'team-a', 'missing'), bounds).catch((e: unknown) => e);
    expect(error).not.toBeInstanceOf(ReachDeniedError);
    expect(error).toMatchObject({ code: 'ENOENT' });
  });
});

describe('readConfined', () => {
  it('reads a regular file inside the root, with its modification time', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'a.md'), 'alpha');
    const confinement = await confineRoot(dir, bounds);
    const read = await readConfined(join(dir, 'a.md'), confinement, 1024);
    expect(read.kind).toBe('read');
    if (read.kind !== 'read') return;
    expect(read.bytes.toString()).toBe('alpha');
    expect(read.mtime).toBeInstanceOf(Date);
  });

  it('reach:read-confined — a directory renamed and replaced by a symlink out of the root after the check is not followed', async () => {
    const dir = await freshDir();
    await mkdir(join(dir, 'sub'));
    await writeFile(join(dir, 'sub', 'b.md'), 'beta');
    await writeFile(join(outside, 'b.md'), 'secret-b');
    const confinement = await confineRoot(dir, bounds);
    expect(await readConfined(join(dir, 'sub', 'b.md'), confinement, 1024)).toMatchObject({ kind: 'read' });
    // The race: after the walk, sub/ is renamed and a symlink to outside takes its place.
    await rename(join(dir, 'sub'), join(dir, 'sub-old'));
    await symlink(outside, join(dir, 'sub'));
    expect(await readConfined(join(dir, 'sub', 'b.md'), confinement, 1024)).toEqual({
      kind: 'skipped',
      why: 'outside-root',
    });
  });

  it('a source root itself swapped for a symlink after confineRoot leads nowhere', async () => {
    const dir = await freshDir();
    const root = join(dir, 'docs');
    await mkdir(root);
    await writeFile(join(root, 'secret.md'), 'mine');
    const confinement = await confineRoot(root, bounds);
    await rename(root, `${root}-old`);
    await symlink(outside, root);
    expect(await readConfined(join(root, 'secret.md'), confinement, 1024)).toEqual({
      kind: 'skipped',
      why: 'outside-root',
    });
  });

  it('refuses a symlink as the file itself (O_NOFOLLOW), wherever it points', async () => {
    const dir = await freshDir();
    await writeFile(join(dir, 'inside.md'), 'inside');
    await symlink(join(outside, 'secret.md'), join(dir, 'out.md'));
    await symlink(join(dir, 'inside.md'), join(dir, 'in.md'));
    const confinement = await confineRoot(dir, bounds);
    await expect(readConfined(join(dir, 'out.md'), confinement, 1024)).rejects.toMatchObject({
      code: 'ELOOP',
    });
    await expect(readConfined(join(dir, 'in.md'), confinement, 1024)).rejects.toMatchObject({
      code: 'ELOOP',
    });
  });

  it.skipIf(!hasMkfifo)('skips a FIFO without blocking on it', async () => {
    const dir = await freshDir();
    execFileSync('mkfifo', [join(dir, 'pipe')]);
    const confinement = await confineRoot(dir, bounds);
    const timeout = new Promise((resolve) => setTimeout(() => resolve('blocked'), 2000));
    expect(await Promise.race([readConfined(join(dir, 'pipe'), confinement, 1024), timeout])).toEqual({
      kind: 'skipped',
      why: 'not-a-file',
    });
  });

  it('skips a directory and a file larger than the limit; a file of exactly the limit is read', async () => {
    const dir = await freshDir();
    await mkdir(join(dir, 'nested'));
    await writeFile(join(dir, 'big.md'), 'x'.repeat(1025));
    await writeFile(join(dir, 'edge.md'), 'x'.repeat(1024));
    const confinement = await confineRoot(dir, bounds);
    expect(await readConfined(join(dir, 'nested'), confinement, 1024)).toEqual({
      kind: 'skipped',
      why: 'not-a-file',
    });
    expect(await readConfined(join(dir, 'big.md'), confinement, 1024)).toEqual({
      kind: 'skipped',
      why: 'too-large',
    });
    const edge = await readConfined(join(dir, 'edge.md'), confinement, 1024);
    expect(edge.kind === 'read' ? edge.bytes.length : edge).toBe(1024);
  });

  it('skips a file opened outside the confinement (a path that was never below the root)', async () => {
    const dir = await freshDir();
    const confinement = await confineRoot(dir, bounds);
    expect(await readConfined(join(outside, 'secret.md'), confinement, 1024)).toEqual({
      kind: 'skipped',
      why: 'outside-root',
    });
    // A sibling whose name shares the root's prefix is outside too.
    await mkdir(`${dir}-twin`);
    await writeFile(join(`${dir}-twin`, 'x.md'), 'twin');
    expect(await readConfined(join(`${dir}-twin`, 'x.md'), confinement, 1024)).toEqual({
      kind: 'skipped',
      why: 'outside-root',
    });
  });
});
