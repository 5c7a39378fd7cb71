// Every command's usage, in one place: each command answers --help/-h with its own (stdout, exit 0),
// prints it on a usage error (stderr, exit 2), and the top-level usage lists them all, so every flag
// the docs name is discoverable from the command line (issue 20).
import { GATEWAY_VERSION } from '../version.js';

export const COMMAND_USAGE = {
  serve: `usage: agent-gateway serve --config FILE [--host H] [--port N] [--init-from EXAMPLE] [--log-level LEVEL]
       agent-gateway serve --kubernetes [--namespace N] [--kubeconfig PATH] [--config BASE] [--host H] [--port N] [--log-level LEVEL]
             [--pin-report-url ORIGIN --pin-report-token-file PATH]

  --config FILE        the gateway config (YAML); with --kubernetes, the base file (server, knowledge,
                       shared state, policy) while workspaces come from the operator's rendered objects
  --init-from EXAMPLE  copy EXAMPLE to FILE first when FILE does not exist yet (npm start does this)
  --host H, --port N   override server.host / server.port of the file
  --kubernetes         read workspaces from the Kubernetes API (namespace: --namespace, POD_NAMESPACE
                       or the pod's service account)
  --kubeconfig PATH    a kubeconfig instead of the in-cluster or default one
  --log-level LEVEL    fatal, error, warn, info (default; or LOG_LEVEL), debug, trace or silent
  --pin-report-url ORIGIN, --pin-report-token-file PATH
                       report pinned tool definitions to the operator at ORIGIN (its wake Service), proving
                       this gateway with the ServiceAccount token in PATH (audience agent-gateway-operator)`,
  operator: `usage: agent-gateway operator --gateway-namespace N [--scope cluster|namespace] [--policy FILE]
       [--kubeconfig PATH] [--lease-namespace N] [--identity ID] [--health-port P] [--health-host H] [--log-level LEVEL]
       [--bridge-image IMAGE] [--gateway-selector K=V,...] [--cluster-domain D]
       [--wake-port P] [--wake-host H] [--wake-url ORIGIN] [--gateway-service-account NS/NAME]

  --gateway-namespace N  where rendered Secrets and ConfigMaps go (default: POD_NAMESPACE)
  --scope                cluster (default): watch every namespace; namespace: the gateway namespace only
  --policy FILE          the admin's tenant reach policy (YAML, the config's policy block); without it the
                         defaults apply: no files roots, loopback/link-local/own/API-server addresses denied
  --kubeconfig PATH      a kubeconfig instead of the in-cluster or default one
  --lease-namespace N    where the leader-election Lease lives (default: the gateway namespace)
  --identity ID          this replica's name in the Lease (default: hostname and a random suffix)
  --health-port P        serve /healthz and /readyz on P (0: any free port); --health-host (default 0.0.0.0)
  --log-level LEVEL      fatal, error, warn, info (default; or LOG_LEVEL), debug, trace or silent
  --bridge-image IMAGE   the operator's own image, whose agw-bridge fronts stdio McpSource spec.run servers
                         (without it they are refused: BridgeNotConfigured)
  --gateway-selector K=V the gateway pods' labels, the only ingress of the servers spec.run renders
                         (default app.kubernetes.io/component=gateway)
  --cluster-domain D     the cluster's DNS domain in rendered Service URLs (default cluster.local)
  --wake-port P          serve the scale-to-zero wake endpoint (POST /wake/NAMESPACE/SOURCE) on port P
  --wake-host H          the wake endpoint's address (default 0.0.0.0)
  --wake-url ORIGIN      where the gateways reach the wake endpoint (its Service), rendered into sources
                         with spec.run.scaleToZero (without it they are refused: WakeNotConfigured)
  --gateway-service-account NS/NAME
                         the gateways' ServiceAccount: with --wake-port, accept their pinning reports
                         (POST /pins/NAMESPACE/SOURCE, token reviewed by the API server) into McpSource
                         status.pinning and Events`,
  'validate-config': `usage: agent-gateway validate-config FILE

  Checks a gateway config file without starting; exit 0 when valid, 1 with every problem by path.`,
  'key create': `usage: agent-gateway key create --config FILE --workspace NAME [--access read|write]
       [--sources P,...] [--tools P,...] [--name LABEL] [--expires 90d|ISO]

  Adds a key to FILE (only its hash is stored) and prints the key once.`,
  'key revoke': 'usage: agent-gateway key revoke --config FILE --id KEY_ID',
  'key list': 'usage: agent-gateway key list --config FILE',
  'key hash': `usage: agent-gateway key hash

  Reads a key on stdin and prints its keyId and keyHash (for an ApiKey with your own key).`,
  sources: `usage: agent-gateway sources --url URL [--refresh ID [--wait]]

  Lists a running gateway's sources as the API key in AGW_API_KEY sees them, one line each: state,
  documents and chunks done of the total, rate, time left and errors.
  --url URL      the gateway, e.g. http://127.0.0.1:8080
  --refresh ID   ask for a sync of source ID (a data source answers at once) or re-list an MCP source
  --wait         with --refresh: print the source's progress every second until it stops syncing;
                 exit 0 when ready, 1 otherwise`,
  'tools approve': `usage: agent-gateway tools approve --config FILE --url URL --source NAME
       (--tool NAME[,NAME...] | --all)

  Approves pinned tool definitions: reads the tools a running gateway holds for source NAME (or, under
  warn, serves unapproved) with the key in AGW_API_KEY, prints what changed and the description the
  model will see, and writes their digests into FILE under the source's pinning.approved.
  --tool NAME    approve these upstream tool names (repeat or comma-separate)
  --all          approve every tool awaiting approval on the source`,
  'connections revoke': `usage: agent-gateway connections revoke --config FILE --workspace NAME
       [--source NAME] [--key ID | --issuer URL --subject SUB]

  Revokes users' connections to user-credential sources in the store FILE's userConnections names
  (SQLite file or PostgreSQL; its secrets are read from this environment): all of the workspace's,
  narrowed to one source and/or one caller (an API key's id, or an OAuth identity by issuer and
  subject). Every gateway sees it at the caller's next call, which asks the user to connect again.`,
  version:
    'usage: agent-gateway version   (the version and the Node it runs on; --version: the version alone)',
} as const;

export type CommandName = keyof typeof COMMAND_USAGE;

export const TOP_USAGE = `agent-gateway ${GATEWAY_VERSION}

${Object.values(COMMAND_USAGE)
  .map((usage) => usage.split('\n\n')[0] as string)
  .join('\n')}
usage: agent-gateway --version | --help

Every command answers --help with its flags.`;

export function wantsHelp(args: readonly string[]): boolean {
  return args.includes('--help') || args.includes('-h');
}
