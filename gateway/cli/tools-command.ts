// `agent-gateway tools approve` (issue 41): an admin reviews the tools a running gateway holds (or,
// under warn, serves unapproved) for one source — what changed, the description the model would
// see, the digest — and approves them: the digests are written into the config file under the
// source's `pinning.approved`, which the gateway reloads. The key comes from AGW_API_KEY, never argv.
import { parseArgs } from 'node:util';
import type { CliIo } from './cli-io.js';
import { callAgent } from './agent-call.js';
import { approveTools, loadEditable, saveEditable } from './config-file-editor.js';
import { COMMAND_USAGE } from './usage.js';

interface Unapproved {
  readonly tool: string;
  readonly change: string;
  readonly fields: string | null;
  readonly digest: string;
  readonly description: string;
}

async function unapprovedOf(
  io: CliIo,
  url: string,
  key: string,
  source: string,
): Promise<{ workspace: string; unapproved: Unapproved[] } | undefined> {
  const body = await callAgent(io, url, key, `/agent/sources/${encodeURIComponent(source)}`);
  if (body === undefined) return undefined;
  if (typeof body['workspace'] !== 'string' || !Array.isArray(body['unapproved'])) {
    io.err(`${source} is not an MCP source of this gateway`);
    return undefined;
  }
  return { workspace: body['workspace'], unapproved: body['unapproved'] as Unapproved[] };
}

export async function toolsApprove(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      url: { type: 'string' },
      source: { type: 'string' },
      tool: { type: 'string', multiple: true },
      all: { type: 'boolean', default: false },
    },
    strict: true,
  });
  const named = (values.tool ?? []).flatMap((list) => list.split(',')).filter((name) => name !== '');
  const { config, url, source } = values;
  if (
    config === undefined ||
    url === undefined ||
    source === undefined ||
    (named.length === 0) === !values.all
  ) {
    io.err(COMMAND_USAGE['tools approve']);
    return 2;
  }
  const key = io.env['AGW_API_KEY'];
  if (key === undefined || key === '') {
    io.err('AGW_API_KEY is not set: put the API key there (never on the command line)');
    return 2;
  }
  const found = await unapprovedOf(io, url, key, source);
  if (found === undefined) return 1;
  const missing = named.filter((name) => !found.unapproved.some((tool) => tool.tool === name));
  if (missing.length > 0) {
    io.err(`not awaiting approval on ${source}: ${missing.join(', ')}`);
    return 1;
  }
  const chosen = values.all ? found.unapproved : found.unapproved.filter((tool) => named.includes(tool.tool));
  if (chosen.length === 0) {
    io.out(`${source}: every tool is approved`);
    return 0;
  }
  const editable = await loadEditable(config);
  approveTools(
    editable.document,
    found.workspace,
    source,
    Object.fromEntries(chosen.map((tool) => [tool.tool, tool.digest])),
  );
  await saveEditable(config, editable.document);
  for (const tool of chosen) {
    const what = tool.change === 'new' ? 'new' : `changed${tool.fields === null ? '' : `: ${tool.fields}`}`;
    io.out(`approved ${source}/${tool.tool} (${what}) ${tool.digest}`);
    io.out(`  description: ${JSON.stringify(tool.description)}`);
  }
  return 0;
}
