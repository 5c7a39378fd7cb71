// KubeConfigSource (D10, D16, D17): the Kubernetes shape's ConfigSource. Watches the Secrets and
// ConfigMaps the operator renders into the gateway's namespace, assembles each workspace from its
// parts, validates it on its own and swaps the whole config atomically. A workspace whose new
// revision is incomplete or invalid keeps its last good version; the others move on. Server and
// knowledge settings come from a base document (the optional --config file), never from the API.
// Each workspace's identity section is bounded by the base's tenant policy (its defaults when it has
// none: no issuer is allowed), checked again here whatever the operator rendered (D19, D24).
import type { Logger } from '../../telemetry/logger.js';
import { validateConfig, validateWorkspace, type ConfigProblem } from '../config-loader.js';
import type { GatewayConfig } from '../config-schema.js';
import type { WorkspaceConfig } from '../workspace-schema.js';
import {
  InvalidConfigError,
  SnapshotHolder,
  type ConfigListener,
  type ConfigSnapshot,
  type ConfigSource,
} from '../config-source.js';
import { IDENTITY_REFUSED_LOG, refusalFields, workspaceUnderPolicy } from '../identity-policy.js';
import type { SecretReader } from '../secret-ref.js';
import { DEFAULT_TENANT_POLICY } from '../tenant-policy-schema.js';
import { WORKSPACE_LABEL, WORKSPACE_NAMESPACE_LABEL, type PartKind } from './rendered-contract.js';
import {
  identityBaseProblems,
  introspectionClash,
  renderedWorkspaceProblems,
} from './rendered-workspace-rules.js';
import type { ObjectFeed, RenderedObject } from './rendered-object.js';
import { assembleWorkspace } from './workspace-assembler.js';
import { count } from '../../telemetry/metrics.js';

export interface KubeConfigSourceOptions {
  readonly feed: ObjectFeed;
  /** Server and knowledge settings; its `workspaces` must be empty (workspaces come from the API). */
  readonly base: unknown;
  readonly logger: Logger;
  /** Where the config comes from, for messages, e.g. `kubernetes namespace agent-gateway`. */
  readonly origin: string;
}

interface AppliedWorkspace {
  readonly revision: string;
  readonly workspace: WorkspaceConfig;
  readonly secrets: ReadonlyMap<string, string>;
}

/** What a workspace's config looks like from this gateway, for status endpoints and logs. */
export interface WorkspaceConfigState {
  readonly appliedRevision?: string;
  /** The newest complete revision that failed validation, while the last good one is served. */
  readonly rejectedRevision?: string;
}

export class KubeConfigSource implements ConfigSource {
  private readonly holder = new SnapshotHolder();
  private readonly objects = new Map<string, RenderedObject>();
  private readonly applied = new Map<string, AppliedWorkspace>();
  private readonly rejected = new Map<string, string>();
  private readonly dirty = new Set<string>();
  private base: GatewayConfig | undefined;
  private started = false;
  private flushScheduled = false;
  private syncedPromise: Promise<void> | undefined;

  constructor(private readonly options: KubeConfigSourceOptions) {}

  /** Validates the base settings and publishes them with no workspaces yet, then lists and watches
   * the API in the background; synced() tells when the first complete list has been applied. */
  start(): Promise<void> {
    try {
      this.validateBase();
    } catch (error) {
      return Promise.reject(error instanceof Error ? error : new Error('invalid base settings'));
    }
    this.publish();
    this.syncedPromise = this.options.feed
      .start({
        upsert: (object) => this.upsert(object),
        remove: (kind, name) => this.remove(kind, name),
      })
      .then(() => {
        this.started = true;
        this.flush();
        this.options.logger.info(
          { origin: this.options.origin, workspaces: this.applied.size },
          'kubernetes config listed; watching for changes',
        );
      });
    return Promise.resolve();
  }

  /** Resolves once the first complete list of rendered objects has been applied. */
  synced(): Promise<void> {
    if (this.syncedPromise === undefined) return Promise.reject(new Error('config source not started'));
    return this.syncedPromise;
  }

  private validateBase(): void {
    const base = validateConfig(this.options.base ?? {});
    if (!base.ok) throw new InvalidConfigError(`${this.options.origin} (base settings)`, base.problems);
    if (base.config.workspaces.length > 0)
      throw new InvalidConfigError(`${this.options.origin} (base settings)`, [
        {
          path: 'workspaces',
          message: 'must be empty with --kubernetes: workspaces come from Workspace resources',
        },
      ]);
    this.base = base.config;
  }

  current(): ConfigSnapshot {
    return this.holder.current();
  }

  subscribe(listener: ConfigListener): () => void {
    return this.holder.subscribe(listener);
  }

  close(): Promise<void> {
    return this.options.feed.stop();
  }

  /** The applied and rejected revision of every workspace this gateway knows of. */
  states(): ReadonlyMap<string, WorkspaceConfigState> {
    const states = new Map<string, WorkspaceConfigState>();
    for (const [name, applied] of this.applied) states.set(name, { appliedRevision: applied.revision });
    for (const [name, revision] of this.rejected)
      states.set(name, { ...states.get(name), rejectedRevision: revision });
    return states;
  }

  /** Adds the rendered Secrets' entries to a reader of environment variables and files. */
  secretReader(base: SecretReader): SecretReader {
    return {
      readEnv: (name) => base.readEnv(name),
      readFile: (path) => base.readFile(path),
      readKubernetesSecret: (name, key) => {
        for (const applied of this.applied.values()) {
          const value = applied.secrets.get(`${name}/${key}`);
          if (value !== undefined) return value;
        }
        return undefined;
      },
    };
  }

  private upsert(object: RenderedObject): void {
    const id = `${object.kind}/${object.name}`;
    const previous = this.objects.get(id);
    this.objects.set(id, object);
    this.markDirty(previous);
    this.markDirty(object);
  }

  private remove(kind: PartKind, name: string): void {
    const id = `${kind}/${name}`;
    const previous = this.objects.get(id);
    this.objects.delete(id);
    this.markDirty(previous);
  }

  private markDirty(object: RenderedObject | undefined): void {
    const workspace = object?.labels[WORKSPACE_LABEL];
    if (workspace === undefined) return;
    this.dirty.add(workspace);
    if (!this.started || this.flushScheduled) return;
    // Events of one update (several parts) arrive back to back: assemble once they have.
    this.flushScheduled = true;
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    if (this.dirty.size === 0) return;
    const names = [...this.dirty];
    this.dirty.clear();
    let changed = false;
    for (const name of names) changed = this.reassemble(name) || changed;
    if (changed) this.publish();
  }

  /** Returns whether the served version of the workspace changed. */
  private reassemble(name: string): boolean {
    const parts = [...this.objects.values()].filter((o) => o.labels[WORKSPACE_LABEL] === name);
    const assembly = assembleWorkspace(parts);
    const logger = this.options.logger;
    if (assembly.kind === 'absent') {
      this.rejected.delete(name);
      if (!this.applied.delete(name)) return false;
      logger.info({ workspace: name }, 'workspace removed from config');
      return true;
    }
    if (assembly.kind === 'incomplete') {
      logger.debug(
        { workspace: name, revisions: assembly.revisions },
        'workspace update incomplete; waiting for all parts',
      );
      return false;
    }
    const current = this.applied.get(name);
    if (current?.revision === assembly.revision) return false;
    if (this.rejected.get(name) === assembly.revision) return false;
    const problems: ConfigProblem[] = assembly.problems.map((message) => ({ path: '(parts)', message }));
    let workspace: WorkspaceConfig | undefined;
    if (problems.length === 0) {
      // The tenant namespace comes from the parts' label, never from the fragment (D19: it picks
      // the namespace's reach allowances and file roots).
      const namespaces = new Set(parts.map((p) => p.labels[WORKSPACE_NAMESPACE_LABEL]));
      const namespace = namespaces.size === 1 ? [...namespaces][0] : undefined;
      if (namespace === undefined)
        problems.push({ path: '(parts)', message: 'the parts must carry one workspace-namespace label' });
      const result = validateWorkspace({ ...assembly.document, namespace });
      if (result.ok && result.workspace.name !== name)
        problems.push({ path: 'name', message: `must equal the workspace label ${name}` });
      else if (result.ok) {
        workspace = this.underPolicy(name, result.workspace);
        problems.push(...renderedWorkspaceProblems(workspace));
        if (this.base !== undefined) problems.push(...identityBaseProblems(workspace, this.base));
      } else problems.push(...result.problems);
    }
    if (workspace !== undefined) {
      const clash = this.keyIdClash(name, workspace);
      if (clash !== undefined)
        problems.push({ path: 'keys', message: `key id ${clash} is already used by another workspace` });
      const sharedIntrospection = introspectionClash(
        workspace,
        [...this.applied.values()].map((a) => a.workspace),
      );
      if (sharedIntrospection !== undefined)
        problems.push({
          path: 'identity.issuers',
          message: `opaque tokens could go to this workspace's or workspace ${sharedIntrospection}'s introspection endpoint: each needs a tokenPrefix the other's does not start with`,
        });
    }
    if (workspace === undefined || problems.length > 0) {
      this.rejected.set(name, assembly.revision);
      count('agw.config.reload.failures');
      logger.warn(
        { workspace: name, revision: assembly.revision, servedRevision: current?.revision ?? null, problems },
        current === undefined
          ? 'workspace config invalid; the workspace is not served'
          : 'workspace config invalid; keeping the last good version',
      );
      return false;
    }
    this.rejected.delete(name);
    this.applied.set(name, { revision: assembly.revision, workspace, secrets: assembly.secrets });
    logger.info(
      {
        workspace: name,
        revision: assembly.revision,
        keys: workspace.keys.length,
        mcpSources: workspace.mcpSources.length,
        dataSources: workspace.dataSources.length,
      },
      'workspace config applied',
    );
    return true;
  }

  /** The workspace with its identity section bounded by the tenant policy, or without it (logged)
   * when the policy refuses it: its keys and sources keep moving on (D17). */
  private underPolicy(name: string, workspace: WorkspaceConfig): WorkspaceConfig {
    const policy = (this.base?.policy ?? DEFAULT_TENANT_POLICY).identity;
    const result = workspaceUnderPolicy(workspace, policy);
    if (result.refused !== undefined)
      this.options.logger.warn(refusalFields(name, result.refused), IDENTITY_REFUSED_LOG);
    return result.workspace;
  }

  /** A key id must identify one key across every workspace (the key index is global). */
  private keyIdClash(name: string, workspace: WorkspaceConfig): string | undefined {
    const ids = new Set(workspace.keys.map((k) => k.id));
    for (const [other, applied] of this.applied) {
      if (other === name) continue;
      for (const key of applied.workspace.keys) if (ids.has(key.id)) return key.id;
    }
    return undefined;
  }

  private publish(): void {
    const base = this.base;
    if (base === undefined) return;
    const names = [...this.applied.keys()].sort();
    const workspaces = names.map((n) => (this.applied.get(n) as AppliedWorkspace).workspace);
    const config = Object.freeze({ ...base, workspaces: Object.freeze(workspaces) }) as GatewayConfig;
    const revisions = new Map(names.map((n) => [n, (this.applied.get(n) as AppliedWorkspace).revision]));
    this.holder.swap(config, revisions);
  }
}
