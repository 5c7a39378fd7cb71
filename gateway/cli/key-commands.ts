// `agent-gateway key create|revoke|list`. `create` prints the new key on stdout and nothing else
// there (so `KEY=$(agent-gateway key create …)` works); everything for humans goes to stderr.
// Only the key's hash is ever written to the config file.
import { COMMAND_USAGE } from './usage.js';
import { parseArgs } from 'node:util';
import { AccessSchema } from '../config/index.js';
import { generateKey, hashKey, parseKey } from '../auth/index.js';
import {
  appendKey,
  loadEditable,
  loadParsed,
  revokeKey,
  saveEditable,
  ConfigEditError,
} from './config-file-editor.js';
import { formatProblems, type ConfigProblem } from '../config/index.js';
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
    io.err(COMMAND_USAGE['key create']);
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
    io.err(COMMAND_USAGE['key revoke']);
    return 2;
  }
  // Revocation works on any file that parses: an emergency must not wait for an unrelated fix.
  const parsed = await loadParsed(values.config);
  if (!revokeKey(parsed.document, values.id)) throw new ConfigEditError(`no key with id ${values.id}`);
  await saveEditable(values.config, parsed.document, parsed.problems);
  io.err(`revoked key ${values.id}; a running gateway stops accepting it as soon as it reloads the file.`);
  warnUnrelated(io, values.config, parsed.problems, 'A running gateway still applies this revocation');
  return 0;
}

function warnUnrelated(
  io: CliIo,
  path: string,
  problems: readonly ConfigProblem[],
  consequence: string,
): void {
  if (problems.length === 0) return;
  io.err(
    `warning: ${path} has ${problems.length} unrelated problem${problems.length === 1 ? '' : 's'}:\n${formatProblems(problems)}\n` +
      `${consequence}, but it rejects every other change in the file until these are fixed.`,
  );
}

interface ListedKey {
  readonly id: string;
  readonly workspace: string;
  readonly access: string;
  readonly revoked: boolean;
  readonly expiresAt: string | undefined;
  readonly hash: string;
  readonly name: string | undefined;
}

/** The keys of a raw document that failed validation, read as far as they can be. */
function rawKeys(document: unknown): ListedKey[] {
  const list = (value: unknown): Record<string, unknown>[] =>
    Array.isArray(value)
      ? value.filter((v): v is Record<string, unknown> => typeof v === 'object' && v !== null)
      : [];
  const text = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
  const root = typeof document === 'object' && document !== null ? (document as Record<string, unknown>) : {};
  return list(root['workspaces']).flatMap((workspace) =>
    list(workspace['keys']).map((key) => ({
      id: text(key['id']) ?? '?',
      workspace: text(workspace['name']) ?? '?',
      access: text(key['access']) ?? 'read',
      revoked: key['revoked'] === true,
      expiresAt: text(key['expiresAt']),
      hash: text(key['hash']) ?? '',
      name: text(key['name']),
    })),
  );
}

export async function keyList(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({ args, options: { config: { type: 'string' } }, strict: true });
  if (values.config === undefined) {
    io.err(COMMAND_USAGE['key list']);
    return 2;
  }
  const parsed = await loadParsed(values.config);
  const keys: ListedKey[] =
    parsed.config === undefined
      ? rawKeys(parsed.document.toJS())
      : parsed.config.workspaces.flatMap((workspace) =>
          workspace.keys.map((key): ListedKey => ({
            id: key.id,
            workspace: workspace.name,
            access: key.access,
            revoked: key.revoked,
            expiresAt: key.expiresAt,
            hash: key.hash,
            name: key.name,
          })),
        );
  const now = io.now().getTime();
  io.out(['ID', 'WORKSPACE', 'ACCESS', 'STATUS', 'FINGERPRINT', 'NAME'].join('\t'));
  for (const key of keys) {
    const expired = key.expiresAt !== undefined && Date.parse(key.expiresAt) <= now;
    const status = key.revoked ? 'revoked' : expired ? 'expired' : 'active';
    const fingerprint = key.hash.slice('sha256:'.length, 'sha256:'.length + 12);
    io.out([key.id, key.workspace, key.access, status, fingerprint, key.name ?? ''].join('\t'));
  }
  warnUnrelated(io, values.config, parsed.problems, 'Keys are listed as written');
  return 0;
}

/** `key hash`: reads a key on stdin and prints the keyId and keyHash of a bring-your-own ApiKey, so
 * the plaintext never has to enter the cluster. */
export async function keyHash(args: string[], io: CliIo): Promise<number> {
  parseArgs({ args, options: {}, strict: true });
  const key = ((await io.readStdin?.()) ?? '').trim();
  const parsed = parseKey(key);
  if (parsed === undefined) {
    io.err(
      'key hash reads one agent-gateway key on stdin (agw_…); what it read is not one (format or checksum).',
    );
    return 1;
  }
  io.out(`keyId: ${parsed.id}`);
  io.out(`keyHash: ${hashKey(key)}`);
  return 0;
}
