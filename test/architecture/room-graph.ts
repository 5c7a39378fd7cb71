// The import graph of gateway/ and operator/ folded to rooms (a folder or lone file directly under
// either): what the layer map in .dependency-cruiser.mjs governs and docs/architecture.md draws.
// It runs the same dependency-cruiser the lint runs, so the picture and the rule read one graph.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';

export interface Layer {
  readonly name: string;
  readonly holds: string;
  readonly rooms: readonly string[];
}

export interface Violation {
  readonly rule: string;
  readonly from: string;
  readonly to: string;
}

export interface RoomGraph {
  readonly layers: readonly Layer[];
  /** `from -> to` between two different rooms, sorted. */
  readonly edges: readonly (readonly [string, string])[];
  readonly violations: readonly Violation[];
}

interface CruiseJson {
  modules: { source: string; dependencies: { resolved: string }[] }[];
  summary: { violations: { rule: { name: string }; from: string; to: string }[] };
}

const run = promisify(execFile);

/** The depcruise CLI of this checkout: the nearest node_modules above this file (source or dist/). */
function findCruiser(): string {
  for (let dir = path.dirname(fileURLToPath(import.meta.url)); ; dir = path.dirname(dir)) {
    const bin = path.join(dir, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruiser.mjs');
    if (existsSync(bin)) return bin;
    if (path.dirname(dir) === dir) throw new Error('dependency-cruiser is not installed (npm ci)');
  }
}
const cruiserBin = findCruiser();

/** The layer table, read from the rule set itself so the two cannot disagree. */
export async function loadLayers(root: string): Promise<readonly Layer[]> {
  const config = (await import(pathToFileURL(path.join(root, '.dependency-cruiser.mjs')).href)) as {
    layers: Layer[];
  };
  return config.layers;
}

/** The room a source path belongs to: `gateway/mcp/x.ts` → `gateway/mcp`, `gateway/app.ts` → itself. */
export function roomOf(source: string): string {
  const parts = source.split('/');
  return parts.slice(0, 2).join('/');
}

/** Cruises `folders` under `root` with the project's rule set (as `npm run lint:layers` does). */
export async function cruiseRooms(
  root: string,
  folders: readonly string[] = ['gateway', 'operator'],
): Promise<RoomGraph> {
  const config = path.join(root, '.dependency-cruiser.mjs');
  const { stdout } = await run(
    process.execPath,
    [
      cruiserBin,
      ...folders.filter((folder) => existsSync(path.join(root, folder))),
      '--config',
      config,
      '--output-type',
      'json',
    ],
    { cwd: root, maxBuffer: 64 * 1024 * 1024 },
  ).catch((error: { stdout?: string }) => {
    // depcruise exits non-zero when the rules are broken; the JSON on stdout is still whole.
    if (typeof error.stdout === 'string' && error.stdout.startsWith('{')) return { stdout: error.stdout };
    throw error;
  });
  const json = JSON.parse(stdout) as CruiseJson;
  const edges = new Set<string>();
  for (const module of json.modules) {
    for (const dependency of module.dependencies) {
      const from = roomOf(module.source);
      const to = roomOf(dependency.resolved);
      if (from !== to && /^(gateway|operator)\//.test(dependency.resolved)) edges.add(`${from}\u0000${to}`);
    }
  }
  return {
    layers: await loadLayers(root),
    edges: [...edges].sort().map((edge) => edge.split('\u0000') as [string, string]),
    violations: json.summary.violations.map((v) => ({ rule: v.rule.name, from: v.from, to: v.to })),
  };
}
