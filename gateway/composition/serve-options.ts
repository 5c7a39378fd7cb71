// What `agent-gateway serve` hands the composition root (gateway/main.ts re-exports it): where the
// config comes from (a file, or the operator's rendered objects), the CLI's host and port, the
// logger and the environment.
import type { Logger as PinoLogger } from 'pino';
import type { PinReportTarget } from './pin-reports.js';

export interface ServeOptions {
  /** The config file; with `kubernetes`, optional and holding only server and knowledge settings. */
  readonly configPath?: string;
  /** Read workspaces from the operator's rendered objects in this namespace (serve --kubernetes). */
  readonly kubernetes?: { readonly namespace: string; readonly kubeconfigPath?: string };
  readonly host?: string;
  readonly port?: number;
  readonly logger: PinoLogger;
  readonly env: NodeJS.ProcessEnv;
  /** Where pinning verdicts are reported (the operator, in the cluster shape; issue 41). */
  readonly pinReports?: PinReportTarget;
}
