// Picks the ConfigSource (STYLE 20: here and nowhere else): the watched file of the embedded shape,
// or the operator's rendered objects with serve --kubernetes (D10), with the CLI's flags applied to
// every version of the document, and the secret reader, readiness gate and key hint that go with it.
import { readFile } from 'node:fs/promises';
import { parseDocument } from 'yaml';
import {
  FileConfigSource,
  processSecretReader,
  type ConfigSource,
  type SecretReader,
} from '../config/index.js';
import { expandOAuthEnv } from '../config/env-expansion.js';
import type { ServeOptions } from './serve-options.js';

export interface ConfigChoice {
  readonly config: ConfigSource;
  readonly secrets: SecretReader;
  /** Resolves when the gateway has its first complete config and may report ready; undefined when
   * it already has (the file shape). */
  readonly synced: Promise<void> | undefined;
  readonly describe: string;
  readonly keyHint: (workspace: string) => string;
  /** The Kubernetes API server this gateway talks to (kept out of tenants' reach), if any. */
  readonly apiServer?: string;
}

/** CLI flags beat the file; applied to every version of the file, including hot reloads, after
 * the `${NAME}` references of the OAuth URLs are expanded from the environment. */
function cliOverrides(options: ServeOptions) {
  return (raw: unknown): unknown => {
    const document = expandOAuthEnv(raw, options.env);
    if (options.host === undefined && options.port === undefined) return document;
    const doc = (document ?? {}) as Record<string, unknown>;
    const server = { ...((doc['server'] as Record<string, unknown> | undefined) ?? {}) };
    if (options.host !== undefined) server['host'] = options.host;
    if (options.port !== undefined) server['port'] = options.port;
    return { ...doc, server };
  };
}

export async function chooseConfig(options: ServeOptions): Promise<ConfigChoice> {
  const env = processSecretReader(options.env);
  if (options.kubernetes === undefined) {
    if (options.configPath === undefined) throw new Error('a config file is required without --kubernetes');
    const path = options.configPath;
    const config = new FileConfigSource({ path, logger: options.logger, overrides: cliOverrides(options) });
    await config.start();
    return {
      config,
      secrets: env,
      synced: undefined,
      describe: config.path,
      keyHint: (workspace) =>
        `workspace has no API keys yet; create one with: npx agent-gateway key create --config ${config.path} --workspace ${workspace}`,
    };
  }
  const { namespace, kubeconfigPath } = options.kubernetes;
  const baseText =
    options.configPath === undefined ? '{version: 1}' : await readFile(options.configPath, 'utf8');
  const base = cliOverrides(options)(parseDocument(baseText, { uniqueKeys: true }).toJS() as unknown);
  // The Kubernetes config source loads only here, in serve --kubernetes; it is our own small
  // client, not @kubernetes/client-node (issue 26).
  const { KubeConfigSource, InformerObjectFeed, loadKubeClientConfig } =
    await import('../config/kube/index.js');
  const kubeConfig = loadKubeClientConfig({
    ...(kubeconfigPath === undefined ? {} : { kubeconfigPath }),
    env: options.env,
  });
  const config = new KubeConfigSource({
    feed: new InformerObjectFeed({
      kubeConfig,
      namespace,
      logger: options.logger,
    }),
    base,
    logger: options.logger,
    origin: `kubernetes namespace ${namespace}`,
  });
  await config.start();
  return {
    config,
    secrets: config.secretReader(env),
    synced: config.synced(),
    describe: `kubernetes:${namespace}`,
    apiServer: kubeConfig.server,
    keyHint: (workspace) =>
      `workspace has no API keys yet; create an ApiKey resource with workspaceRef ${workspace}`,
  };
}
