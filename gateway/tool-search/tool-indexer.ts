// Embeds a workspace's tools when they are discovered, not when the first search asks (issue 37).
// The catalog reports each source's tools as it reads them; for a workspace with an embeddings
// provider the whole catalog (the sources still configured) goes to ToolVectors, which embeds what is
// missing in the background and drops the vectors of tools that left. Once following the config, a
// workspace with embeddings whose sources or embeddings settings changed is discovered in the
// background, so a workspace added or changed later is embedded before its first search too.
import type { GatewayConfig, WorkspaceConfig } from '../config/index.js';
import type { CatalogTool, ToolCatalog } from '../discovery/index.js';
import { embeddingsFor } from '../knowledge/index.js';
import type { Logger } from '../telemetry/logger.js';
import { toolDocument } from './tool-document.js';
import type { EmbeddedText, ToolVectors } from './tool-vectors.js';

/** What the indexer needs of the catalog. */
export type IndexedCatalog = Pick<ToolCatalog, 'onSourceTools' | 'workspaceCatalog'>;

/** Whether the config has this workspace and it has embeddings (the knowledge layer's default
 * settings apply to every workspace, so a name alone is not enough). */
function embedded(config: GatewayConfig, workspace: string): boolean {
  return (
    config.workspaces.some((w) => w.name === workspace) && embeddingsFor(config, workspace) !== undefined
  );
}

function fingerprintOf(config: GatewayConfig, workspace: WorkspaceConfig): string {
  return JSON.stringify([workspace.mcpSources, embeddingsFor(config, workspace.name)]);
}

/** What the indexer keeps of one source's last reported list: the list itself only weakly (the
 * catalog's cache holds it while it is current; its term statistics are megabytes for thousands of
 * tools) and the texts its vectors are made of. */
interface IndexedSource {
  readonly list: WeakRef<readonly CatalogTool[]>;
  /** The list until the next flush has read its texts. */
  pending: readonly CatalogTool[] | undefined;
  texts: readonly EmbeddedText[];
}

export class ToolIndexer {
  /** Per workspace with embeddings: each source's last reported list. */
  private readonly workspaces = new Map<string, Map<string, IndexedSource>>();
  /** Per workspace with embeddings: what its sources and embeddings settings were when last discovered. */
  private readonly fingerprints = new Map<string, string>();
  private readonly due = new Set<string>();
  private flushing: Promise<void> | undefined;
  private following = false;

  constructor(
    private readonly catalog: IndexedCatalog,
    private readonly vectors: ToolVectors,
    private readonly current: () => GatewayConfig,
    private readonly logger: Logger,
  ) {
    catalog.onSourceTools((workspace, source, tools) => this.listed(workspace, source, tools));
  }

  /** From now on a config change discovers the workspaces with embeddings whose sources or
   * embeddings changed. Called when the gateway discovers every workspace itself (at readiness):
   * what is configured then counts as discovered. */
  follow(): void {
    this.following = true;
    const config = this.current();
    for (const workspace of config.workspaces)
      if (embeddingsFor(config, workspace.name) !== undefined)
        this.fingerprints.set(workspace.name, fingerprintOf(config, workspace));
  }

  /** A new config is in use: forget what left, re-index what lost sources, discover what changed. */
  configure(): void {
    const config = this.current();
    for (const name of new Set([...this.workspaces.keys(), ...this.fingerprints.keys()]))
      if (!embedded(config, name)) {
        this.workspaces.delete(name);
        this.fingerprints.delete(name);
        this.vectors.forget(name);
      } else this.schedule(name);
    if (!this.following) return;
    for (const workspace of config.workspaces) {
      if (embeddingsFor(config, workspace.name) === undefined) continue;
      const fingerprint = fingerprintOf(config, workspace);
      if (this.fingerprints.get(workspace.name) === fingerprint) continue;
      this.fingerprints.set(workspace.name, fingerprint);
      void this.discover(workspace);
    }
  }

  /** Resolves once what was reported so far has reached ToolVectors and its pass has ended. */
  async settled(workspace: string): Promise<void> {
    await this.flushing;
    await this.vectors.settled(workspace);
  }

  private async discover(workspace: WorkspaceConfig): Promise<void> {
    const started = Date.now();
    // Never throws: a source that cannot be listed is reported by the catalog and left out.
    const { tools } = await this.catalog.workspaceCatalog(workspace);
    this.logger.debug(
      { workspace: workspace.name, tools: tools.length, ms: Date.now() - started },
      'workspace discovered for its tool vectors',
    );
  }

  /** On the request path (the catalog's listener): a lookup, and the work deferred. */
  private listed(workspace: string, source: string, tools: readonly CatalogTool[]): void {
    let sources = this.workspaces.get(workspace);
    if (sources?.get(source)?.list.deref() === tools) return;
    if (!this.vectors.configured(workspace)) return;
    if (sources === undefined) {
      sources = new Map();
      this.workspaces.set(workspace, sources);
    }
    sources.set(source, { list: new WeakRef(tools), pending: tools, texts: [] });
    this.schedule(workspace);
  }

  private schedule(workspace: string): void {
    this.due.add(workspace);
    this.flushing ??= new Promise<void>((resolve) => setImmediate(resolve))
      .then(() => this.flush())
      .finally(() => {
        this.flushing = undefined;
      });
  }

  private flush(): void {
    const config = this.current();
    for (const name of this.due) {
      this.due.delete(name);
      const sources = this.workspaces.get(name);
      const workspace = config.workspaces.find((w) => w.name === name);
      if (sources === undefined || workspace === undefined) continue;
      const configured = new Set(workspace.mcpSources.map((s) => s.name));
      for (const [source, indexed] of sources) {
        if (!configured.has(source)) sources.delete(source);
        else if (indexed.pending !== undefined) {
          indexed.texts = indexed.pending.map((tool) => {
            const { digest, text } = toolDocument(tool);
            return { digest, text };
          });
          indexed.pending = undefined;
        }
      }
      this.vectors.index(
        name,
        [...sources.values()].flatMap((indexed) => indexed.texts),
      );
    }
  }
}
