// Summarises a V8 `.cpuprofile` (node --cpu-prof) for the hot-path profile: where the CPU time of
// the last `windowMs` of the profile went, as self time by package or module and as inclusive time
// of the gateway's own functions. Idle time is reported apart, never as work.
import { readFile } from 'node:fs/promises';

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number };
  readonly children?: readonly number[];
}

interface CpuProfile {
  readonly nodes: readonly ProfileNode[];
  readonly samples: readonly number[];
  readonly timeDeltas: readonly number[];
}

export interface ProfileSummary {
  /** Busy (non-idle) milliseconds in the window. */
  readonly busyMs: number;
  readonly idleMs: number;
  /** Self time by package (node_modules), gateway directory, Node internal module or V8 bucket. */
  readonly selfByOwner: readonly [string, number][];
  /** Inclusive time of the gateway's own functions (each counted once per sample). */
  readonly inclusiveGateway: readonly [string, number][];
}

export function ownerOf(url: string, functionName: string): string {
  if (url === '') return `(${functionName || 'native'})`;
  const modules = url.lastIndexOf('node_modules/');
  if (modules >= 0) {
    const parts = url.slice(modules + 'node_modules/'.length).split('/');
    return (parts[0]?.startsWith('@') === true ? parts.slice(0, 2) : parts.slice(0, 1)).join('/');
  }
  const dist = url.indexOf('/dist/');
  if (dist >= 0)
    return url
      .slice(dist + 1)
      .split('/')
      .slice(0, 3)
      .join('/');
  return url
    .replace(/^node:internal\//, 'node:')
    .split('/')
    .slice(0, 2)
    .join('/');
}

export async function summariseProfile(path: string, windowMs: number): Promise<ProfileSummary> {
  const profile = JSON.parse(await readFile(path, 'utf8')) as CpuProfile;
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const total = profile.timeDeltas.reduce((sum, delta) => sum + delta, 0);
  const from = total - windowMs * 1000;
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let elapsed = 0;
  let idle = 0;
  let busy = 0;
  for (const [index, sample] of profile.samples.entries()) {
    const delta = profile.timeDeltas[index] ?? 0;
    elapsed += delta;
    if (elapsed < from) continue;
    const node = byId.get(sample);
    if (node === undefined) continue;
    const { url, functionName } = node.callFrame;
    if (url === '' && functionName === '(idle)') {
      idle += delta;
      continue;
    }
    busy += delta;
    const owner = ownerOf(url, functionName);
    self.set(owner, (self.get(owner) ?? 0) + delta);
    const seen = new Set<string>();
    for (let at: ProfileNode | undefined = node; at !== undefined; at = byId.get(parent.get(at.id) ?? -1)) {
      const frame = at.callFrame;
      const dist = frame.url.indexOf('/dist/gateway/');
      if (dist < 0) continue;
      const name = `${frame.functionName || '(anonymous)'} ${frame.url.slice(dist + '/dist/'.length)}:${frame.lineNumber + 1}`;
      if (seen.has(name)) continue;
      seen.add(name);
      inclusive.set(name, (inclusive.get(name) ?? 0) + delta);
    }
  }
  const sorted = (map: Map<string, number>) =>
    [...map.entries()].sort((a, b) => b[1] - a[1]).map(([key, us]): [string, number] => [key, us / 1000]);
  return {
    busyMs: busy / 1000,
    idleMs: idle / 1000,
    selfByOwner: sorted(self),
    inclusiveGateway: sorted(inclusive),
  };
}
