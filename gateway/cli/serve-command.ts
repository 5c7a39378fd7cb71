// `agent-gateway serve --config FILE [--host H] [--port N] [--init-from EXAMPLE]`: runs the gateway
// until SIGINT/SIGTERM. `serve --kubernetes [--namespace N] [--kubeconfig PATH] [--config BASE]` reads
// workspaces from the operator's rendered objects instead (the optional file then holds only server
// and knowledge settings). `--init-from` copies an example config to FILE when FILE does not exist yet,
// which is how `npm start` gives a newcomer a private, editable config on first run.
import { applyHeapGrowthSetting } from './heap-growth-setting.js';
import { copyFile, mkdir } from 'node:fs/promises';
import { existsSync, readFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { parseArgs } from 'node:util';
import { InvalidConfigError, formatProblems } from '../config/index.js';
import { startGateway } from '../main.js';
import { createPinoLogger, type LogLevel } from '../telemetry/index.js';
import { shutdownTelemetry } from '../telemetry/telemetry-handle.js';
import type { CliIo } from './cli-io.js';
import { COMMAND_USAGE } from './usage.js';

const LEVELS = new Set(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']);

export async function serveCommand(args: string[], io: CliIo): Promise<number> {
  if (!applyHeapGrowthSetting(io)) return 2;
  const { values } = parseArgs({
    args,
    options: {
      config: { type: 'string' },
      host: { type: 'string' },
      port: { type: 'string' },
      'init-from': { type: 'string' },
      'log-level': { type: 'string' },
      kubernetes: { type: 'boolean' },
      namespace: { type: 'string' },
      kubeconfig: { type: 'string' },
      'pin-report-url': { type: 'string' },
      'pin-report-token-file': { type: 'string' },
    },
    strict: true,
  });
  const kubernetes = values.kubernetes === true;
  if (values.config === undefined && !kubernetes) {
    io.err(COMMAND_USAGE.serve);
    return 2;
  }
  if (!kubernetes && (values.namespace !== undefined || values.kubeconfig !== undefined)) {
    io.err('--namespace and --kubeconfig only apply with --kubernetes');
    return 2;
  }
  const namespace = kubernetes ? (values.namespace ?? defaultNamespace(io.env)) : undefined;
  if (kubernetes && namespace === undefined) {
    io.err('--kubernetes needs --namespace N (or POD_NAMESPACE, or running in a pod)');
    return 2;
  }
  const reportUrl = values['pin-report-url'];
  const reportToken = values['pin-report-token-file'];
  if ((reportUrl === undefined) !== (reportToken === undefined) || (reportUrl !== undefined && !kubernetes)) {
    io.err('--pin-report-url and --pin-report-token-file go together, and only with --kubernetes');
    return 2;
  }
  if (reportUrl !== undefined && !/^https?:\/\/[^/?#]+\/?$/.test(reportUrl)) {
    io.err(
      '--pin-report-url must be an http(s) origin, e.g. http://agw-operator-wake.agw-system.svc.cluster.local:8083',
    );
    return 2;
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && (!Number.isInteger(port) || port < 0 || port > 65_535)) {
    io.err('--port must be an integer from 0 to 65535');
    return 2;
  }
  const level = values['log-level'] ?? io.env['LOG_LEVEL'] ?? 'info';
  if (!LEVELS.has(level)) {
    io.err(`--log-level must be one of ${[...LEVELS].join(', ')}`);
    return 2;
  }
  if (values['init-from'] !== undefined && values.config !== undefined && !existsSync(values.config)) {
    await mkdir(dirname(values.config), { recursive: true });
    await copyFile(values['init-from'], values.config);
    io.err(`created ${values.config} from ${values['init-from']}`);
  }

  const logger = createPinoLogger({ level: level as LogLevel });
  let gateway;
  try {
    gateway = await startGateway({
      ...(values.config === undefined ? {} : { configPath: values.config }),
      ...(namespace === undefined
        ? {}
        : {
            kubernetes: {
              namespace,
              ...(values.kubeconfig === undefined ? {} : { kubeconfigPath: values.kubeconfig }),
            },
          }),
      logger,
      env: io.env,
      ...(values.host === undefined ? {} : { host: values.host }),
      ...(port === undefined ? {} : { port }),
      ...(reportUrl === undefined || reportToken === undefined
        ? {}
        : { pinReports: { url: reportUrl, tokenFile: reportToken } }),
    });
  } catch (error) {
    if (error instanceof InvalidConfigError) {
      io.err(`${error.message}:\n${formatProblems(error.problems)}`);
      return 1;
    }
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') io.err(`${values.config ?? values.kubeconfig ?? 'config'}: no such file`);
    else if (code === 'EADDRINUSE') {
      const { address, port: busy } = error as { address?: string; port?: number };
      const where = address === undefined ? 'the address' : `${address}:${busy ?? '?'}`;
      io.err(`${where} is already in use; pick another port with --port N (npm start -- --port N)`);
    } else io.err(`failed to start: ${(error as Error).message}`);
    return 1;
  }
  const origin = namespace === undefined ? `config ${values.config}` : `kubernetes namespace ${namespace}`;
  io.err(`agent gateway listening on ${gateway.url} (${origin}); Ctrl-C stops it`);
  const running = gateway;
  await new Promise<void>((resolve) => {
    const onSignal = () => {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      void running.stop().then(resolve);
    };
    process.on('SIGINT', onSignal);
    process.on('SIGTERM', onSignal);
  });
  // The last spans of the drain are exported before the process ends.
  await shutdownTelemetry();
  return 0;
}

const SERVICE_ACCOUNT_NAMESPACE = '/var/run/secrets/kubernetes.io/serviceaccount/namespace';

/** The pod's own namespace: POD_NAMESPACE (downward API) or the service account's namespace file. */
function defaultNamespace(env: NodeJS.ProcessEnv): string | undefined {
  if (env['POD_NAMESPACE'] !== undefined && env['POD_NAMESPACE'] !== '') return env['POD_NAMESPACE'];
  try {
    return readFileSync(SERVICE_ACCOUNT_NAMESPACE, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
