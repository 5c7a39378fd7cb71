// Where the gateway's Kubernetes credentials come from, without @kubernetes/client-node (issue 26:
// importing it cost a `serve --kubernetes` replica ~86 MiB). The same chain as client-go and
// client-node: a kubeconfig file when given (--kubeconfig, tests), else $KUBECONFIG, else
// ~/.kube/config, else the in-cluster service account. Only what a gateway needs is supported: a
// bearer token (inline, or a file re-read on every request so a rotated token is used at once), a
// client certificate and key, and a CA (file or inline). TLS is always verified.
import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse } from 'yaml';

/** The in-cluster service account's mount (the same path in every pod). */
export const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount';

export interface KubeClientConfig {
  /** The API server's https URL, without a trailing slash. */
  readonly server: string;
  /** PEM CA bundle to trust; undefined means the system roots. */
  readonly ca?: Buffer;
  readonly cert?: Buffer;
  readonly key?: Buffer;
  /** The server name to verify when it differs from the URL's host (kubeconfig tls-server-name). */
  readonly serverName?: string;
  /** The bearer token for the next request, if any (a token file is read again each time). */
  readonly token: () => Promise<string | undefined>;
  /** Where the config came from, for messages (never its content). */
  readonly origin: string;
}

export interface LoadKubeClientConfigOptions {
  readonly kubeconfigPath?: string;
  readonly env?: NodeJS.ProcessEnv;
  /** The service account mount; tests point it at a directory of their own. */
  readonly serviceAccountDir?: string;
}

export class KubeConfigError extends Error {
  override readonly name = 'KubeConfigError';
}

export function loadKubeClientConfig(options: LoadKubeClientConfigOptions = {}): KubeClientConfig {
  const env = options.env ?? process.env;
  if (options.kubeconfigPath !== undefined) return fromKubeconfigFile(options.kubeconfigPath);
  const fromEnv = env['KUBECONFIG']
    ?.split(':')
    .filter((path) => path !== '')
    .find((path) => existsSync(path));
  if (fromEnv !== undefined) return fromKubeconfigFile(fromEnv);
  const home = join(env['HOME'] ?? homedir(), '.kube', 'config');
  if (existsSync(home)) return fromKubeconfigFile(home);
  return inCluster(env, options.serviceAccountDir ?? SERVICE_ACCOUNT_DIR);
}

/** The pod's service account: KUBERNETES_SERVICE_HOST/PORT, its CA and its (rotated) token file. */
export function inCluster(env: NodeJS.ProcessEnv, dir: string): KubeClientConfig {
  const host = env['KUBERNETES_SERVICE_HOST'];
  const port = env['KUBERNETES_SERVICE_PORT'];
  if (host === undefined || host === '' || port === undefined || port === '')
    throw new KubeConfigError(
      'no kubeconfig found ($KUBECONFIG, ~/.kube/config) and not in a cluster (KUBERNETES_SERVICE_HOST/PORT unset)',
    );
  const tokenFile = join(dir, 'token');
  return {
    server: `https://${host.includes(':') ? `[${host}]` : host}:${port}`,
    ca: readOrFail(join(dir, 'ca.crt'), 'the service account CA'),
    token: tokenFileReader(tokenFile),
    origin: `service account ${dir}`,
  };
}

interface Named<T> {
  readonly name?: unknown;
  readonly cluster?: T;
  readonly user?: T;
  readonly context?: T;
}
type Fields = Record<string, unknown>;

export function fromKubeconfigFile(path: string): KubeClientConfig {
  let document: unknown;
  try {
    document = parse(readFileSync(path, 'utf8'));
  } catch (error) {
    const reason = (error as NodeJS.ErrnoException).code ?? (error as Error).name;
    throw new KubeConfigError(`cannot read kubeconfig ${path}: ${reason}`);
  }
  const fail = (message: string): never => {
    throw new KubeConfigError(`kubeconfig ${path}: ${message}`);
  };
  if (typeof document !== 'object' || document === null) return fail('not a YAML mapping');
  const config = document as Fields;
  const contextName = config['current-context'];
  if (typeof contextName !== 'string' || contextName === '') return fail('no current-context');
  const context = entry(config['contexts'], contextName, 'context') ?? fail(`no context ${contextName}`);
  const clusterName = typeof context['cluster'] === 'string' ? context['cluster'] : '';
  const cluster = entry(config['clusters'], clusterName, 'cluster') ?? fail(`no cluster ${clusterName}`);
  const userName = context['user'];
  const user =
    typeof userName === 'string' && userName !== ''
      ? (entry(config['users'], userName, 'user') ?? fail(`no user ${userName}`))
      : {};
  const base = dirname(resolve(path));
  const server = typeof cluster['server'] === 'string' ? cluster['server'].replace(/\/+$/, '') : '';
  if (!server.startsWith('https://')) fail(`cluster ${clusterName}: server must be an https URL`);
  if (cluster['insecure-skip-tls-verify'] === true)
    fail(`cluster ${clusterName}: insecure-skip-tls-verify is not supported (TLS is always verified)`);
  for (const unsupported of ['exec', 'auth-provider', 'username', 'password'])
    if (user[unsupported] !== undefined)
      fail(
        `user ${String(userName)}: '${unsupported}' is not supported; use a token, tokenFile or client certificate`,
      );
  const material = (dataKey: string, fileKey: string, what: string, from: Fields): Buffer | undefined => {
    const data = from[dataKey];
    if (typeof data === 'string' && data !== '') return Buffer.from(data, 'base64');
    const file = from[fileKey];
    if (typeof file === 'string' && file !== '')
      return readOrFail(isAbsolute(file) ? file : join(base, file), `${what} of kubeconfig ${path}`);
    return undefined;
  };
  const ca = material('certificate-authority-data', 'certificate-authority', 'the CA', cluster);
  const cert = material('client-certificate-data', 'client-certificate', 'the client certificate', user);
  const key = material('client-key-data', 'client-key', 'the client key', user);
  if ((cert === undefined) !== (key === undefined))
    fail(`user ${String(userName)}: a client certificate needs its key and the other way round`);
  const inlineToken = typeof user['token'] === 'string' && user['token'] !== '' ? user['token'] : undefined;
  const tokenFile =
    typeof user['tokenFile'] === 'string' && user['tokenFile'] !== '' ? user['tokenFile'] : undefined;
  const serverName = cluster['tls-server-name'];
  return {
    server,
    ...(ca === undefined ? {} : { ca }),
    ...(cert === undefined || key === undefined ? {} : { cert, key }),
    ...(typeof serverName === 'string' && serverName !== '' ? { serverName } : {}),
    token:
      inlineToken !== undefined
        ? () => Promise.resolve(inlineToken)
        : tokenFile !== undefined
          ? tokenFileReader(isAbsolute(tokenFile) ? tokenFile : join(base, tokenFile))
          : () => Promise.resolve(undefined),
    origin: `kubeconfig ${path}`,
  };
}

function entry(list: unknown, name: string, field: 'cluster' | 'user' | 'context'): Fields | undefined {
  if (!Array.isArray(list)) return undefined;
  const found = (list as Named<Fields>[]).find((item) => item.name === name);
  const value = found?.[field];
  return found === undefined ? undefined : typeof value === 'object' && value !== null ? value : {};
}

function readOrFail(path: string, what: string): Buffer {
  try {
    return readFileSync(path);
  } catch (error) {
    throw new KubeConfigError(
      `cannot read ${what} (${path}): ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
    );
  }
}

/** Reads the token file for every request: the kubelet rotates a projected token in place. */
function tokenFileReader(path: string): () => Promise<string> {
  return async () => {
    try {
      return (await readFile(path, 'utf8')).trim();
    } catch (error) {
      throw new KubeConfigError(
        `cannot read the token file ${path}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`,
      );
    }
  };
}
