// `agent-gateway key create|revoke|list`. `create` prints the new key on stdout and nothing else
// there (so `KEY=$(agent-gateway key create …)` works); everything for humans goes to stderr.
// Only the key's hash is ever written to the config file.
import { parseArgs } from 'node:util';
import { AccessSchema } from '../config/index.js';
import { generateKey } from '../auth/index.js';
import { appendKey, loadEditable, revokeKey, saveEditable, ConfigEditError } from './config-file-editor.js';
import { parseExpiry } from './expiry.js';
import type { CliIo } from './cli-io.js';

function splitList(value: string | undefined): string[] | undefined {
  if (value === undefined) return undefined;
  return value
    .split(',')
    .map((part) => part.trim())
    .filter((part) => part !== '');
}

export async function keyCreate(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      workspace: { type: 'string' },
      access: { type: 'string', default: 'read' },
      sources: { type: 'string' },
      tools: { type: 'string' },
      name: { type: 'string' },
      expires: { type: 'string' },
    },
    strict: true,
  });
  if (values.config === undefined || values.workspace === undefined) {
    io.err(
      'usage: agent-gateway key create --config FILE --workspace NAME [--access read|write] [--sources P,…] [--tools P,…] [--name LABEL] [--expires 90d|ISO]',
    );
    return 2;
  }
  const access = AccessSchema.safeParse(values.access);
  if (!access.success) {
    io.err('--access must be read or write');
    return 2;
  }
  const now = io.now();
  const generated = generateKey();
  const record: Record<string, unknown> = { id: generated.id };
  if (values.name !== undefined) record['name'] = values.name;
  record['hash'] = generated.hash;
  record['access'] = access.data;
  const sources = splitList(values.sources);
  const tools = splitList(values.tools);
  if (sources !== undefined) record['sources'] = sources;
  if (tools !== undefined) record['tools'] = tools;
  record['createdAt'] = now.toISOString();
  if (values.expires !== undefined) record['expiresAt'] = parseExpiry(values.expires, now);

  const editable = await loadEditable(values.config);
  appendKey(editable.document, values.workspace, record);
  await saveEditable(values.config, editable.document);
  io.out(generated.key);
  io.err(
    `created key ${generated.id} (${access.data}) in workspace ${values.workspace}; only its hash was written to ${values.config}.`,
  );
  io.err('Store the key now: it cannot be shown again.');
  return 0;
}

export async function keyRevoke(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: { config: { type: 'string' }, id: { type: 'string' } },
    strict: true,
  });
  if (values.config === undefined || values.id === undefined) {
    io.err('usage: agent-gateway key revoke --config FILE --id KEY_ID');
    return 2;
  }
  const editable = await loadEditable(values.config);
  if (!revokeKey(editable.document, values.id)) throw new ConfigEditError(`no key with id ${values.id}`);
  await saveEditable(values.config, editable.document);
  io.err(`revoked key ${values.id}; a running gateway stops accepting it as soon as it reloads the file.`);
  return 0;
}

export async function keyList(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { config: { type: 'string' } }, strict: true });
  if (values.config === undefined) {
    io.err('usage: agent-gateway key list --config FILE');
    return 2;
  }
  const { config } = await loadEditable(values.config);
  const now = io.now().getTime();
  io.out(['ID', 'WORKSPACE', 'ACCESS', 'STATUS', 'FINGERPRINT', 'NAME'].join('\t'));
  for (const workspace of config.workspaces) {
    for (const key of workspace.keys) {
      const expired = key.expiresAt !== undefined && Date.parse(key.expiresAt) <= now;
      const status = key.revoked ? 'revoked' : expired ? 'expired' : 'active';
      const fingerprint = key.hash.slice('sha256:'.length, 'sha256:'.length + 12);
      io.out([key.id, workspace.name, key.access, status, fingerprint, key.name ?? ''].join('\t'));
    }
  }
  return 0;
}
