// `agent-gateway connections revoke` (issue 42): an admin revokes users' connections to `user`
// sources straight in the connection store the config names (SQLite file or PostgreSQL) — all of a
// workspace's, of one source, of one caller (an API key's id, or an OAuth identity by issuer and
// subject), or of one caller at one source. Every gateway reads the store at each use, so the
// revocation holds on every replica at once. Prints how many connections went; never a token.
import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { identityKeyId } from '../auth/index.js';
import { formatProblems, parseConfigText, processSecretReader } from '../config/index.js';
import { openConnectionRows } from '../connections/index.js';
import { createPinoLogger } from '../telemetry/index.js';
import type { CliIo } from './cli-io.js';
import { COMMAND_USAGE } from './usage.js';

export async function connectionsRevoke(args: string[], io: CliIo): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      workspace: { type: 'string' },
      source: { type: 'string' },
      key: { type: 'string' },
      issuer: { type: 'string' },
      subject: { type: 'string' },
    },
    strict: true,
  });
  const { config: file, workspace, source, key, issuer, subject } = values;
  const identity = issuer !== undefined || subject !== undefined;
  if (
    file === undefined ||
    workspace === undefined ||
    (key !== undefined && identity) ||
    (identity && (issuer === undefined || subject === undefined))
  ) {
    io.err(COMMAND_USAGE['connections revoke']);
    return 2;
  }
  const parsed = parseConfigText(await readFile(file, 'utf8'));
  if (!parsed.ok) {
    io.err(`${file}: ${formatProblems(parsed.problems)}`);
    return 1;
  }
  if (!parsed.config.workspaces.some((w) => w.name === workspace)) {
    io.err(`${file} has no workspace ${workspace}`);
    return 1;
  }
  const principal =
    key ??
    (issuer !== undefined && subject !== undefined ? identityKeyId(workspace, issuer, subject) : undefined);
  const rows = await openConnectionRows(
    parsed.config.userConnections,
    processSecretReader(io.env),
    createPinoLogger({ level: 'silent' }),
  );
  try {
    const revoked = await rows.remove({ workspace, principal, source });
    const scope = [
      `workspace ${workspace}`,
      ...(source === undefined ? [] : [`source ${source}`]),
      ...(principal === undefined ? [] : [`principal ${principal}`]),
    ].join(', ');
    io.out(`revoked ${revoked} connection${revoked === 1 ? '' : 's'} (${scope})`);
    return 0;
  } finally {
    await rows.close();
  }
}
