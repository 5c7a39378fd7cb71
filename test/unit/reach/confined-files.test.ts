// Confined file reads (issue 20, D19) in a real temporary tree: a source root must lie inside an
// allowed root as written and after symbolic links, and each file's real location is read back
// from its open descriptor, so a directory swapped for a symlink after the root was checked, a
// symlinked file or a FIFO lead nowhere.
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rename, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TenantPolicySchema } from '../../../gateway/config/index.js';
import { confineRoot, readConfined, ReachPolicy } from '../../../gateway/reach/index.js';

let base: string;
let outside: string;
let bounds: { policy: ReachPolicy; scope: { namespace: string; workspace: string } };

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'agw-confined-'));
  outside = await mkdtemp(join(tmpdir(), 'agw-confined-outside-'));
  await writeFile(join(outside, 'secret.md'), 'secret');
  await mkdir(join(base, 'team-a', 'docs'), { recursive: true });
  await writeFile(join(base, 'team-a', 'docs', 'a.md'), 'alpha');
  await writeFile(join(base, 'team-a', 'docs', 'big.md'), 'x'.repeat(5000));
  await symlink(outside, join(base, 'team-a', 'escape'));
  await symlink(join(outside, 'secret.md'), join(base, 'team-a', 'docs', 'link.md'));
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

describe('confined files', () => {
  it('reach:confine-root — outside, dotted and symlinked roots are refused; a real root inside is accepted', async () => {
    await expect(confineRoot(outside, bounds)).rejects.toMatchObject({ reason: 'path-not-allowed' });
    await expect(confineRoot(join(base, 'team-a', '..', 'team-b'), bounds)).rejects.toMatchObject({
      reason: 'path-not-allowed',
    });
    await expect(confineRoot(join(base, 'team-a', 'escape'), bounds)).rejects.toMatchObject({
      reason: 'path-escapes-root',
    });
    expect((await confineRoot(join(base, 'team-a', 'docs'), bounds)).realRoot).toBe(
      join(base, 'team-a', 'docs'),
    );
    // Without a policy (the embedded file without one) any existing directory is a root.
    expect((await confineRoot(outside, undefined)).realRoot).toBe(outside);
  });

  it('reach:read-confined — files are read inside the root; a symlinked file, a swapped directory, a FIFO and an oversized file are not', async () => {
    const docs = join(base, 'team-a', 'docs');
    const confinement = await confineRoot(docs, bounds);
    expect(await readConfined(join(docs, 'a.md'), confinement, 1024)).toMatchObject({ kind: 'read' });
    expect(await readConfined(join(docs, 'big.md'), confinement, 1024)).toEqual({
      kind: 'skipped',
      why: 'too-large',
    });
    await expect(readConfined(join(docs, 'link.md'), confinement, 1024)).rejects.toMatchObject({
      code: 'ELOOP',
    });
    execFileSync('mkfifo', [join(docs, 'pipe')]);
    expect(await readConfined(join(docs, 'pipe'), confinement, 1024)).toEqual({
      kind: 'skipped',
      why: 'not-a-file',
    });
    // The root was checked; then a component is renamed and replaced by a symlink out of it.
    const sub = join(docs, 'sub');
    await mkdir(sub);
    await writeFile(join(sub, 'b.md'), 'beta');
    await rename(sub, `${sub}-old`);
    await symlink(outside, sub);
    await writeFile(join(outside, 'b.md'), 'secret-b');
    expect(await readConfined(join(sub, 'b.md'), confinement, 1024)).toEqual({
      kind: 'skipped',
      why: 'outside-root',
    });
  });
});
