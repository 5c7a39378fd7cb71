// The `agent-gateway` command line: serve, operator, validate-config, key create|revoke|list|hash.
import { ConfigEditError } from './config-file-editor.js';
import { processIo, type CliIo } from './cli-io.js';
import { keyCreate, keyHash, keyList, keyRevoke } from './key-commands.js';
import { operatorCommand } from './operator-command.js';
import { serveCommand } from './serve-command.js';
import { validateCommand } from './validate-command.js';
import { GATEWAY_VERSION } from '../version.js';

const USAGE = `agent-gateway ${GATEWAY_VERSION}

usage:
  agent-gateway serve --config FILE [--host H] [--port N] [--init-from EXAMPLE] [--log-level LEVEL]
  agent-gateway serve --kubernetes [--namespace N] [--kubeconfig PATH] [--config BASE] [--port N]
  agent-gateway operator --gateway-namespace N [--kubeconfig PATH] [--lease-namespace N] [--identity ID]
  agent-gateway validate-config FILE
  agent-gateway key create --config FILE --workspace NAME [--access read|write]
                           [--sources P,...] [--tools P,...] [--name LABEL] [--expires 90d|ISO]
  agent-gateway key revoke --config FILE --id KEY_ID
  agent-gateway key list --config FILE
  agent-gateway key hash         (reads a key on stdin; prints keyId and keyHash for an ApiKey)
  agent-gateway version          (with the Node version it runs on)
  agent-gateway --version`;

export async function runCli(argv: string[], io: CliIo): Promise<number> {
  const [command, ...rest] = argv;
  try {
    switch (command) {
      case 'serve':
        return await serveCommand(rest, io);
      case 'operator':
        return await operatorCommand(rest, io);
      case 'validate-config':
        return await validateCommand(rest, io);
      case 'key': {
        const [sub, ...keyArgs] = rest;
        if (sub === 'create') return await keyCreate(keyArgs, io);
        if (sub === 'revoke') return await keyRevoke(keyArgs, io);
        if (sub === 'list') return await keyList(keyArgs, io);
        if (sub === 'hash') return await keyHash(keyArgs, io);
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
      case '--help':
      case '-h':
      case 'help':
        io.err(USAGE);
        return command === undefined ? 2 : 0;
      default:
        io.err(`unknown command "${command}"\n\n${USAGE}`);
        return 2;
    }
  } catch (error) {
    if (error instanceof ConfigEditError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
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
  process.exitCode = code;
}
