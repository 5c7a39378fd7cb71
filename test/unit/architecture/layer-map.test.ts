// The layer map (DESIGN D27, docs/architecture.md): the rule set in .dependency-cruiser.mjs fails on
// each way a structure drifts, passes on the tree as it is, and the picture in docs/architecture.md is
// what the code draws now.
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderLayerPicture, PICTURE_BEGIN, PICTURE_END } from '../../architecture/layer-picture.js';
import { cruiseRooms, type RoomGraph } from '../../architecture/room-graph.js';

const ROOT = process.cwd();

/** A throwaway tree with the project's rule set and tsconfig, holding only `files`. */
async function fixtureTree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'agw-layers-'));
  await cp(path.join(ROOT, '.dependency-cruiser.mjs'), path.join(dir, '.dependency-cruiser.mjs'));
  await writeFile(
    path.join(dir, 'tsconfig.json'),
    JSON.stringify({ compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true } }),
  );
  for (const [name, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), text);
  }
  return dir;
}

const fixtures: string[] = [];
async function violationsOf(files: Record<string, string>): Promise<RoomGraph['violations']> {
  const dir = await fixtureTree(files);
  fixtures.push(dir);
  return (await cruiseRooms(dir)).violations;
}
afterAll(async () => {
  for (const dir of fixtures) await rm(dir, { recursive: true, force: true });
});

describe('layer map rules', () => {
  it('arch:upward-import-fails — a lower room importing a higher one is refused, named by its rule', async () => {
    const violations = await violationsOf({
      'gateway/config/a.ts': "import { b } from '../mcp/b.js';\nexport const a = b;\n",
      'gateway/mcp/b.ts': 'export const b = 1;\n',
    });
    expect(violations).toEqual([
      { rule: 'layer:gateway/config', from: 'gateway/config/a.ts', to: 'gateway/mcp/b.ts' },
    ]);
  }, 60_000);

  it('arch:sibling-import-fails — the two faces may not import each other', async () => {
    const violations = await violationsOf({
      'gateway/rest/a.ts': "import { b } from '../mcp/b.js';\nexport const a = b;\n",
      'gateway/mcp/b.ts': 'export const b = 1;\n',
    });
    expect(violations.map((v) => v.rule)).toEqual(['layer:gateway/rest']);
  }, 60_000);

  it('arch:downward-import-passes — a face importing config, a primitive, the protocol room: no violation', async () => {
    const violations = await violationsOf({
      'gateway/mcp/a.ts':
        "import { b } from '../config/b.js';\nimport { c } from '../platform/c.js';\nimport { d } from '../protocol/d.js';\nexport const a = b + c + d;\n",
      'gateway/config/b.ts': 'export const b = 1;\n',
      'gateway/platform/c.ts': 'export const c = 1;\n',
      'gateway/protocol/d.ts': 'export const d = 1;\n',
    });
    expect(violations).toEqual([]);
  }, 60_000);

  it('arch:cycle-fails — two files of one room importing each other is refused, also when only types cross', async () => {
    const values = await violationsOf({
      'gateway/discovery/a.ts': "import { b } from './b.js';\nexport const a = () => b;\n",
      'gateway/discovery/b.ts': "import { a } from './a.js';\nexport const b = () => a;\n",
    });
    expect(values.length).toBeGreaterThan(0);
    expect(values.every((v) => v.rule === 'no-cycles')).toBe(true);
    const types = await violationsOf({
      'gateway/knowledge/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
      'gateway/knowledge/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
    });
    expect(types.length).toBeGreaterThan(0);
    expect(types.every((v) => v.rule === 'no-cycles')).toBe(true);
  }, 60_000);

  it('arch:gateway-never-imports-operator — only the CLI reaches into operator/', async () => {
    const violations = await violationsOf({
      'gateway/mcp/a.ts': "import { k } from '../../operator/kube/k.js';\nexport const a = k;\n",
      'gateway/cli/c.ts': "import { k } from '../../operator/kube/k.js';\nexport const c = k;\n",
      'operator/kube/k.ts': 'export const k = 1;\n',
    });
    expect(violations.map((v) => `${v.rule} ${v.from}`)).toEqual([
      'gateway-never-imports-operator gateway/mcp/a.ts',
    ]);
  }, 60_000);

  it('arch:room-on-the-map — a folder the map does not name fails until it is given a layer', async () => {
    const violations = await violationsOf({
      'gateway/newroom/a.ts': "import { b } from '../config/b.js';\nexport const a = b;\n",
      'gateway/config/b.ts': 'export const b = 1;\n',
    });
    expect(violations.map((v) => v.rule)).toEqual(['room-on-the-map']);
  }, 60_000);
});

describe('the tree as it is', () => {
  let graph: RoomGraph;
  beforeAll(async () => {
    graph = await cruiseRooms(ROOT);
  }, 120_000);

  it('arch:main-passes — no upward import, no cycle anywhere in gateway/ and operator/', () => {
    expect(graph.violations).toEqual([]);
  });

  it('arch:picture-up-to-date — docs/architecture.md shows what `npm run gen:architecture` draws', async () => {
    const document = await readFile(path.join(ROOT, 'docs/architecture.md'), 'utf8');
    const inDoc = document.slice(
      document.indexOf(PICTURE_BEGIN),
      document.indexOf(PICTURE_END) + PICTURE_END.length,
    );
    expect(inDoc).toBe(renderLayerPicture(graph));
  });
});
