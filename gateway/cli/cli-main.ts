// The `agent-gateway` command line: serve, operator, validate-config, key create|revoke|list|hash,
// sources, tools approve, connections revoke.
// Each command's module is imported when that command runs (issue 26): `serve` never loads the
// operator and its Kubernetes client, and `key list` loads neither the gateway nor the operator.
import { processIo, type CliIo } from './cli-io.js';
import { GATEWAY_VERSION } from '../version.js';
import { COMMAND_USAGE, TOP_USAGE, wantsHelp, type CommandName } from './usage.js';

const USAGE = TOP_USAGE;

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  const grouped = command === 'key' || command === 'tools' || command === 'connections';
  const sub = grouped ? `${command} ${rest[0] ?? ''}` : command;
  if (sub !== undefined && Object.hasOwn(COMMAND_USAGE, sub) && wantsHelp(grouped ? rest.slice(1) : rest)) {
    io.out(COMMAND_USAGE[sub as CommandName]);
    return 0;
  }
  if (command === 'key' && (rest.length === 0 || wantsHelp(rest.slice(0, 1)))) {
    const keyUsage = Object.entries(COMMAND_USAGE)
      .filter(([name]) => name.startsWith('key '))
      .map(([, usage]) => usage.split('\n\n')[0])
      .join('\n');
    if (rest.length === 0) {
      io.err(keyUsage);
      return 2;
    }
    io.out(keyUsage);
    return 0;
  }
  try {
    switch (command) {
      case 'serve':
        return await (await import('./serve-command.js')).serveCommand(rest, io);
      case 'operator':
        return await (await import('./operator-command.js')).operatorCommand(rest, io);
      case 'sources':
        return await (await import('./sources-command.js')).sourcesCommand(rest, io);
      case 'tools': {
        if (rest[0] === 'approve')
          return await (await import('./tools-command.js')).toolsApprove(rest.slice(1), io);
        io.err(COMMAND_USAGE['tools approve']);
        return 2;
      }
      case 'connections': {
        if (rest[0] === 'revoke')
          return await (await import('./connections-command.js')).connectionsRevoke(rest.slice(1), io);
        io.err(COMMAND_USAGE['connections revoke']);
        return 2;
      }
      case 'validate-config':
        return await (await import('./validate-command.js')).validateCommand(rest, io);
      case 'key': {
        const [sub, ...keyArgs] = rest;
        const keys = await import('./key-commands.js');
        if (sub === 'create') return await keys.keyCreate(keyArgs, io);
        if (sub === 'revoke') return await keys.keyRevoke(keyArgs, io);
        if (sub === 'list') return await keys.keyList(keyArgs, io);
        if (sub === 'hash') return await keys.keyHash(keyArgs, io);
        io.err(USAGE);
        return 2;
      }
      case '--version':
        io.out(GATEWAY_VERSION);
        return 0;
      case 'version':
        io.out(`agent-gateway ${GATEWAY_VERSION} on Node ${process.version}`);
        return 0;
      case undefined:
        io.err(USAGE);
        return 2;
      case '--help':
      case '-h':
      case 'help':
        io.out(USAGE);
        return 0;
      default:
        io.err(`unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (
      (error as Error).name === 'ConfigEditError' ||
      (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')
    ) {
      io.err((error as Error).message);
      return 2;
    }
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') {
      io.err(`no such file: ${(error as NodeJS.ErrnoException).path ?? ''}`);
      return 1;
    }
    io.err(`error: ${(error as Error).message}`);
    return 1;
  }
}

export async function main(): Promise<void> {
  const code = await runCli(process.argv.slice(2), processIo());
  // A start that failed half-way may still hold what it opened (a Redis connection, a watch), which
  // would keep the process alive, not serving and never restarted by its liveness probe: exit now.
  // stderr is written synchronously to files and pipes, so the message is out.
  if (code !== 0) process.exit(code);
  process.exitCode = code;
}
