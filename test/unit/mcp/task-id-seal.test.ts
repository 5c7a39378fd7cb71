// The sealed task ids (issue 43): opened only by the key that owns them and only under a configured
// key; expired, tampered or foreign ids open to nothing; a rotation opens ids sealed under the old key.
import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TaskIdSeal, type SealedTask } from '../../../gateway/mcp/task-id-seal.js';

const task: SealedTask = {
  workspace: 'demo',
  keyId: 'k1',
  source: 'tasks',
  kind: 'upstream',
  upstreamId: 'up-123',
  slot: 'slot-1',
  link: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01',
  tool: 'tasks__slow',
  upstreamTool: 'slow',
  exp: 10_000,
};
const owner = { workspace: 'demo', keyId: 'k1' };

describe('task id seal', () => {
  it('tasks:seal-binding — opens for its owner only, before its expiry, and hides the upstream id', () => {
    const seal = new TaskIdSeal();
    const id = seal.seal(task);
    expect(id).toMatch(/^agwt1\.[A-Za-z0-9_-]+$/);
    expect(id).not.toContain('up-123');
    expect(seal.open(id, owner, 9_999)).toEqual(task);
    expect(seal.open(id, owner, 10_000)).toBeUndefined();
    expect(seal.open(id, { workspace: 'demo', keyId: 'k2' }, 0)).toBeUndefined();
    expect(seal.open(id, { workspace: 'other', keyId: 'k1' }, 0)).toBeUndefined();
    expect(new TaskIdSeal().open(id, owner, 0)).toBeUndefined();
    // A changed character in the middle (the last one may carry only padding bits, which decode
    // to the same bytes whatever they are).
    const middle = Math.floor(id.length / 2);
    const tampered = `${id.slice(0, middle)}${id[middle] === 'A' ? 'B' : 'A'}${id.slice(middle + 1)}`;
    expect(seal.open(tampered, owner, 0)).toBeUndefined();
    expect(seal.open(42, owner, 0)).toBeUndefined();
  });

  it('tasks:seal-rotation — the first key seals, every configured key opens', () => {
    const [oldKey, newKey] = [randomBytes(32), randomBytes(32)];
    const id = new TaskIdSeal([oldKey]).seal(task);
    expect(new TaskIdSeal([newKey, oldKey]).open(id, owner, 0)).toEqual(task);
    expect(new TaskIdSeal([newKey]).open(id, owner, 0)).toBeUndefined();
  });
});
