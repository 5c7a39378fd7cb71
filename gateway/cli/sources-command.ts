// `agent-gateway sources --url URL [--refresh ID [--wait]]` (issue 39): a running gateway's sources as
// the key in AGW_API_KEY sees them (never a key in argv), one line each with state and progress:
// documents and chunks done of the total, rate and time left. `--refresh` asks a sync (202) and with
// `--wait` follows the source until it stops syncing: exit 0 when ready, 1 otherwise.
import { parseArgs } from 'node:util';
import type { CliIo } from './cli-io.js';
import { callAgent as call } from './agent-call.js';
import { COMMAND_USAGE } from './usage.js';

type Row = Record<string, string | number | null>;

const POLL_MS = 1_000;

/** `docs 120/301 · chunks 1200/1500 · 40/s · 8 s left`, leaving out what is unknown. */
export function progressLine(row: Row): string {
  const pair = (done: Row[string] | undefined, total: Row[string] | undefined) =>
    done === null || done === undefined
      ? undefined
      : `${String(done)}/${total === null ? '?' : String(total)}`;
  const parts = [
    `${String(row['id'])} (${String(row['type'])}): ${String(row['status'])}`,
    row['progress_phase'] === null || row['progress_phase'] === undefined
      ? undefined
      : String(row['progress_phase']),
    row['type'] === 'mcp' ? `${String(row['tool_count'] ?? '?')} tools` : undefined,
    pair(row['documents_done'], row['documents_total']) &&
      `documents ${pair(row['documents_done'], row['documents_total'])}`,
    pair(row['chunks_done'], row['chunks_total']) &&
      `chunks ${pair(row['chunks_done'], row['chunks_total'])}`,
    row['rate_per_s'] === null || row['rate_per_s'] === undefined
      ? undefined
      : `${String(row['rate_per_s'])}/s`,
    row['eta_s'] === null || row['eta_s'] === undefined ? undefined : `${String(row['eta_s'])} s left`,
    row['embedding_error'] ? `embedding: ${String(row['embedding_error'])}` : undefined,
    row['embedding_retry_at'] ? `resumes ${String(row['embedding_retry_at'])}` : undefined,
    row['last_error'] ? `error: ${String(row['last_error'])}` : undefined,
  ];
  return parts.filter((part) => part !== undefined && part !== '').join(' · ');
}

async function listSources(io: CliIo, url: string, key: string): Promise<Row[] | undefined> {
  const body = await call(io, url, key, '/agent/sources');
  return body === undefined ? undefined : (body['sources'] as Row[]);
}

export async function sourcesCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      url: { type: 'string' },
      refresh: { type: 'string' },
      wait: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const key = io.env['AGW_API_KEY'];
  if (values.url === undefined || (values.wait && values.refresh === undefined)) {
    io.err(COMMAND_USAGE.sources);
    return 2;
  }
  if (key === undefined || key === '') {
    io.err('AGW_API_KEY is not set: put the API key there (never on the command line)');
    return 2;
  }
  const url = values.url;
  if (values.refresh !== undefined) {
    const id = values.refresh;
    const accepted = await call(io, url, key, `/agent/sources/${encodeURIComponent(id)}/refresh`, 'POST');
    if (accepted === undefined) return 1;
    const sync = accepted['sync'];
    io.out(`${id}: refresh ${typeof sync === 'string' ? sync : 'done'}`);
    if (!values.wait) return 0;
    // The 202's Location: the source's own record.
    const follow =
      typeof accepted['follow'] === 'string'
        ? accepted['follow']
        : `/agent/sources/${encodeURIComponent(id)}`;
    for (;;) {
      const row = (await call(io, url, key, follow))?.['source'] as Row | undefined;
      if (row === undefined) return 1;
      io.out(progressLine(row));
      if (row['status'] !== 'syncing') return row['status'] === 'ready' ? 0 : 1;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
  }
  const rows = await listSources(io, url, key);
  if (rows === undefined) return 1;
  for (const row of rows) io.out(progressLine(row));
  return 0;
}
