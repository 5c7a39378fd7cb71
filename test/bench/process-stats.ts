// Resident memory and CPU time of a benchmark participant, read from /proc: the process and its
// direct children (nginx's workers) for memory, and for CPU either the process itself or, with
// `processTreeCpuMs`, it and its direct children. Undefined where /proc is not available.
import { readdir, readFile } from 'node:fs/promises';

async function rssKiB(pid: number): Promise<number> {
  const status = await readFile(`/proc/${pid}/status`, 'utf8').catch(() => '');
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)?.[1] ?? 0);
}

async function childrenOf(pid: number): Promise<number[]> {
  const entries = await readdir('/proc').catch(() => [] as string[]);
  const children: number[] = [];
  for (const entry of entries) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    // Fields after the command name (which may hold spaces) start at the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    if (ppid === pid) children.push(Number(entry));
  }
  return children;
}

/** RSS in MiB of `pid`'s direct children alone (0 when it has none). */
export async function childrenRssMiB(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  let total = 0;
  for (const child of await childrenOf(pid)) total += await rssKiB(child);
  return total / 1024;
}

/** RSS in MiB of `pid` plus its direct children. */
export async function processTreeRssMiB(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  const own = await rssKiB(pid);
  if (own === 0) return undefined;
  let total = own;
  for (const child of await childrenOf(pid)) total += await rssKiB(child);
  return total / 1024;
}

/** CPU time (user + system) the process has used so far, in ms. */
export async function processCpuMs(pid: number | undefined): Promise<number | undefined> {
  if (pid === undefined) return undefined;
  const stat = await readFile(`/proc/${pid}/stat`, 'utf8').catch(() => '');
  if (stat === '') return undefined;
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command; in clock ticks.
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / CLOCK_TICKS;
}

/** CPU time of `pid` and its direct children (nginx's workers do its work), in ms. */
export async function processTreeCpuMs(pid: number | undefined): Promise<number | undefined> {
  const own = await processCpuMs(pid);
  if (own === undefined || pid === undefined) return own;
  let total = own;
  for (const child of await childrenOf(pid)) total += (await processCpuMs(child)) ?? 0;
  return total;
}

/** Clock ticks per second (USER_HZ): 100 on Linux everywhere this runs. */
const CLOCK_TICKS = 100;
