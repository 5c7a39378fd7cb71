// The workspace tool catalog: the union of each source's upstream tools, filtered by the source's
// config, named `<source>__<tool>` (D5) and marked with the permission a call needs. Raw upstream
// lists are cached per source (and credential context via the source fingerprint); per-key
// filtering happens after the cache, in the callers. A failing source is left out and reported; once
// known to be failing it is not listed on request paths at all but probed in the background
// (source-prober.ts), and its failure and recovery are logged once each.
import type { Tool } from '@modelcontextprotocol/client';
import { matchesAny } from '../auth/index.js';
import type { Access, GatewayConfig, McpSourceConfig, WorkspaceConfig } from '../config/index.js';
import { catalogueEntry } from '../errors/index.js';
import type { Logger } from '../telemetry/logger.js';
import type { UpstreamPool } from '../upstream/index.js';
import {
  type BreakerRegistry,
  classifyUpstreamError,
  withSessionRecovery,
  type BreakerState,
} from '../upstream/index.js';
import type { DiscoveryCache } from './discovery-cache.js';
import { inSpan, SpanKind } from '../telemetry/tracing.js';
import { MAX_LIST_TTL_MS, sourceCacheKey, sourceCachePrefix } from './cache-key.js';
import type { CachedToolList, DiscoveryEntry } from './discovery-entry.js';
import { SourceListCache } from './source-list-cache.js';
import type { SourceState, SourceStatusRegistry } from './source-status.js';
import { SourceFailures } from './source-failures.js';
import type { ProbeTarget } from './source-prober.js';
import { screenNames } from './tool-name-policy.js';
import { printableSkips, SkippedToolsLog } from './skipped-tools.js';
import { namespacedToolName } from './tool-namer.js';
import { logVerdict, PinLedger } from './pin-ledger.js';
import { presentTool } from './tool-overrides.js';
import { ApprovedDefinitions, judgeDefinitions, type PinVerdict } from './tool-pins.js';
import { count } from '../telemetry/metrics.js';

export interface CatalogTool {
  readonly name: string;
  readonly source: string;
  readonly upstreamName: string;
  readonly description: string;
  readonly permission: Access;
  readonly inputSchema: Tool['inputSchema'];
  readonly annotations: Tool['annotations'];
  /** The upstream's full tool definition, relayed with the name replaced. */
  readonly definition: Tool;
}

export interface WorkspaceCatalog {
  /** How long the merged result stays fresh: the shortest remaining lifetime of its parts (0 if any part is uncached). */
  readonly ttlMs: number;
  readonly tools: readonly CatalogTool[];
  readonly sources: ReadonlyMap<string, SourceState>;
  /** The sources (of those read) whose upstream advertised the 2026 tasks extension (issue 43). */
  readonly taskSources: ReadonlySet<string>;
}

/** One source's catalog tools, how long they stay fresh, and whether it offers 2026 tasks. */
interface Listing {
  readonly tools: CatalogTool[];
  readonly ttlMs: number;
  readonly tasks: boolean;
}

export interface ToolCatalogDeps {
  readonly pool: UpstreamPool;
  readonly breakers: BreakerRegistry;
  /** Shared with SourceListCache: tool lists under the source's key, other lists under suffixes. */
  readonly cache: DiscoveryCache<DiscoveryEntry>;
  readonly now?: () => number;
  readonly statuses: SourceStatusRegistry;
  readonly logger: Logger;
  /** How long a raw upstream list is reused when the upstream gives no `ttlMs` (2025-era servers). */
  readonly listTtlMs: number;
}

/** Hears a source's catalog tools (see ToolCatalog.onSourceTools). */
export type SourceToolsListener = (workspace: string, source: string, tools: readonly CatalogTool[]) => void;

export function requiredPermission(source: McpSourceConfig, tool: Tool): Access {
  // Own keys only: a tool named `constructor` or `__proto__` must not find Object.prototype's.
  const override = Object.hasOwn(source.permissions, tool.name) ? source.permissions[tool.name] : undefined;
  if (override !== undefined) return override;
  // Deny by default: only a tool that declares itself read-only is callable with read access.
  return tool.annotations?.readOnlyHint === true ? 'read' : 'write';
}

/** A source's tools as served: filtered by its patterns, presented with its overrides, judged by its
 * pinning (a held tool is left out here, so no list, ranking or call can reach it). */
function toCatalogTools(
  source: McpSourceConfig,
  tools: readonly Tool[],
  memory: ApprovedDefinitions,
  memoryKey: string,
): { tools: CatalogTool[]; verdict: PinVerdict } {
  const presented = tools
    .filter(
      (tool) => matchesAny(source.tools.include, tool.name) && !matchesAny(source.tools.exclude, tool.name),
    )
    .map((tool) => presentTool(source, tool));
  const { served, verdict } = judgeDefinitions(source, presented, memory, memoryKey);
  const catalogTools = served.map((tool) => ({
    name: namespacedToolName(source.name, tool.name),
    source: source.name,
    upstreamName: tool.name,
    description: tool.description ?? '',
    permission: requiredPermission(source, tool),
    inputSchema: tool.inputSchema,
    annotations: tool.annotations,
    definition: tool,
  }));
  return { tools: catalogTools, verdict };
}

/** Catalog tools derived from one raw list under one source config (config objects are replaced,
 * never changed, on reload), so a reused list is not re-derived (nor re-digested) for every request. */
const derivedTools = new WeakMap<
  readonly Tool[],
  { source: McpSourceConfig; tools: CatalogTool[]; verdict: PinVerdict }
>();

export class ToolCatalog {
  /** The same cache's resource and prompt lists (same keys, lifetimes and invalidation). */
  readonly lists: SourceListCache;
  /** The last raw list of each source and when it was listed (this replica): what a tools/call is
   * decided on within the source's callListFloorMs when the upstream said ttlMs 0. */
  private readonly recent = new Map<string, { tools: readonly Tool[]; listedAt: number }>();
  private readonly refreshing = new Map<string, Promise<readonly CatalogTool[]>>();
  private readonly sourceToolsListeners: SourceToolsListener[] = [];
  private readonly skipLog: SkippedToolsLog;
  /** Sources this replica knows to be failing, and their background probes. */
  private readonly failures: SourceFailures;
  /** What pinning decided last per source, and the approved definitions seen (issue 41). */
  readonly pins = new PinLedger();
  private readonly approvedSeen = new ApprovedDefinitions();
  /** The last raw list judged per source (kept across reloads, which drop the cached lists), to
   * judge it again when the source's pinning changes. One reference per configured source. */
  private readonly lastJudged = new Map<string, readonly Tool[]>();

  constructor(private readonly deps: ToolCatalogDeps) {
    this.skipLog = new SkippedToolsLog(deps.logger);
    this.lists = new SourceListCache(deps.cache, deps.listTtlMs);
    this.failures = new SourceFailures({ ...deps, probe: (target) => this.probe(target) });
    // An upstream's list-changed signal (tools, prompts or resources) drops its cached lists at once.
    deps.pool.onListChanged((workspace, source) => void this.invalidate(workspace, source));
    this.pins.onVerdict((workspace, source, verdict) => logVerdict(deps.logger, workspace, source, verdict));
  }

  /** Hears each source's tools whenever a workspace catalog is read with a usable list of it (this
   * replica's listing or the shared cache's): the same array while the list and the source's config
   * are unchanged, so a listener tells a change by identity. A source that could not be listed is
   * not reported (its last tools stay what they were). Listeners run on the request path: keep them
   * to a lookup and defer any work. */
  onSourceTools(listener: SourceToolsListener): void {
    this.sourceToolsListeners.push(listener);
  }

  /** A raw list's catalog tools under one source config; the source's pinning verdict is recorded. */
  private derive(workspace: string, source: McpSourceConfig, tools: readonly Tool[]): CatalogTool[] {
    let known = derivedTools.get(tools);
    if (known?.source !== source) {
      known = {
        source,
        ...toCatalogTools(source, tools, this.approvedSeen, PinLedger.retainKey(workspace, source.name)),
      };
      derivedTools.set(tools, known);
    }
    this.pins.record(workspace, source.name, known.verdict);
    this.lastJudged.set(PinLedger.retainKey(workspace, source.name), tools);
    return known.tools;
  }

  static cacheKey(workspace: string, source: McpSourceConfig): string {
    return sourceCacheKey(workspace, source);
  }

  /** `retryFailing` lists a failing source now instead of leaving it out (an explicit refresh). */
  async workspaceCatalog(
    workspace: WorkspaceConfig,
    sourceFilter?: (name: string) => boolean,
    options: { retryFailing?: boolean } = {},
  ): Promise<WorkspaceCatalog> {
    const wanted = workspace.mcpSources.filter((s) => sourceFilter === undefined || sourceFilter(s.name));
    const lists = await Promise.all(
      wanted.map((source) => this.sourceTools(workspace.name, source, options.retryFailing === true)),
    );
    // A source left out (failing, or its listing failed just now) is not reported: its last tools
    // stay what the listeners had.
    wanted.forEach((source, i) => {
      if (this.deps.statuses.get(workspace.name, source.name).status === 'unavailable') return;
      const list = lists[i]?.tools ?? [];
      for (const listener of this.sourceToolsListeners) listener(workspace.name, source.name, list);
    });
    const tools = lists
      .flatMap((list) => list.tools)
      .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    const ttlMs = lists.reduce((min, list) => Math.min(min, list.ttlMs), this.deps.listTtlMs);
    const sources = new Map(wanted.map((s) => [s.name, this.failures.state(workspace.name, s)] as const));
    const taskSources = new Set(wanted.filter((_, i) => lists[i]?.tasks === true).map((s) => s.name));
    return { tools, sources, ttlMs, taskSources };
  }

  /** The failure of one source, if this replica knows it as failing (resources and prompts lists
   * leave it out with this code rather than wait on it). */
  failingCode(workspace: string, source: McpSourceConfig): SourceState['error'] {
    return this.failures.failingCode(workspace, source);
  }

  /** Every source this replica knows as failing (for the metrics gauge). */
  failingSources(): { workspace: string; source: string }[] {
    return this.failures.failingSources();
  }

  /** Stops the probes of sources the new config no longer has in the same form, forgets pinning
   * state of sources it no longer has, and judges the others' last lists under their new pinning. */
  retain(config: GatewayConfig): void {
    this.failures.retain(config);
    const keep = new Set(
      config.workspaces.flatMap((w) => w.mcpSources.map((s) => PinLedger.retainKey(w.name, s.name))),
    );
    this.pins.retain(keep);
    this.approvedSeen.retain(keep);
    // A source's pinning may have changed (an approval, another mode): judge its last list again
    // now, so the verdict (and the operator's status) follows the config without waiting for a
    // request to list the source.
    for (const key of this.lastJudged.keys()) if (!keep.has(key)) this.lastJudged.delete(key);
    for (const workspace of config.workspaces)
      for (const source of workspace.mcpSources) {
        const tools = this.lastJudged.get(PinLedger.retainKey(workspace.name, source.name));
        if (tools !== undefined && source.pinning.mode !== 'off') this.derive(workspace.name, source, tools);
        else if (tools !== undefined)
          this.pins.record(workspace.name, source.name, { mode: 'off', unapproved: [] });
      }
  }

  /** Stops every probe (shutdown). */
  close(): void {
    this.failures.close();
  }

  /** The tools of one source for deciding a tools/call: the cached list while the upstream says it
   * is fresh; else the last list while it is younger than the source's `callListFloorMs` (refreshed
   * in the background once half of that has passed); else a fresh list, one listing for concurrent
   * calls. `reused` marks an answer from the floor, so the caller re-checks what it would refuse. */
  async callTools(
    workspace: string,
    source: McpSourceConfig,
    options: { fresh?: boolean } = {},
  ): Promise<{ tools: readonly CatalogTool[]; reused: boolean }> {
    const key = sourceCacheKey(workspace, source);
    if (options.fresh !== true) {
      const cached = await this.cachedTools(key);
      if (cached !== undefined) {
        count('agw.discovery.lookups', { result: 'hit' });
        return { tools: this.derive(workspace, source, cached.tools), reused: false };
      }
      const recent = this.recent.get(key);
      const age = (this.deps.now ?? Date.now)() - (recent?.listedAt ?? 0);
      if (recent !== undefined && age < source.callListFloorMs) {
        count('agw.discovery.lookups', { result: 'floor' });
        if (age >= source.callListFloorMs / 2) void this.refresh(workspace, source, key);
        return { tools: this.derive(workspace, source, recent.tools), reused: true };
      }
    }
    return { tools: await this.refresh(workspace, source, key), reused: false };
  }

  /** The source's current state (for a call whose tool could not be found). */
  status(workspace: string, sourceName: string): SourceState {
    return this.deps.statuses.get(workspace, sourceName);
  }

  private refresh(workspace: string, source: McpSourceConfig, key: string): Promise<readonly CatalogTool[]> {
    let running = this.refreshing.get(key);
    if (running === undefined) {
      running = this.sourceTools(workspace, source)
        .then((list) => list.tools)
        .finally(() => this.refreshing.delete(key));
      this.refreshing.set(key, running);
    }
    return running;
  }

  private async cachedTools(key: string): Promise<CachedToolList | undefined> {
    const entry = await this.deps.cache.get(key);
    return entry !== undefined && 'tools' in entry ? entry : undefined;
  }

  breakerState(workspace: string, sourceName: string): BreakerState {
    return this.deps.breakers.state(workspace, sourceName);
  }

  /** Forgets the cached list of one source so the next read asks the upstream again. */
  invalidate(workspace: string, sourceName: string): Promise<void> {
    const prefix = sourceCachePrefix(workspace, sourceName);
    for (const key of this.recent.keys()) if (key.startsWith(prefix)) this.recent.delete(key);
    return this.deps.cache.invalidate(sourceCachePrefix(workspace, sourceName));
  }

  /** One probe of a failing source: what a request would do, without the failing shortcut and
   * without listing twice when another replica's listing just failed. */
  private async probe({ workspace, source }: ProbeTarget): Promise<void> {
    const { recovered } = await this.discover(workspace, source, 'probe');
    count('agw.discovery.probes', { result: recovered ? 'recovered' : 'failed' });
  }

  private async sourceTools(
    workspace: string,
    source: McpSourceConfig,
    retryFailing = false,
  ): Promise<Listing> {
    return (await this.discover(workspace, source, retryFailing ? 'retry' : 'request')).list;
  }

  /** The source's tools from the cache, else listed once (per key across replicas). On a request
   * path a source known to be failing is left out at once: no upstream contact, no wait. */
  private async discover(
    workspace: string,
    source: McpSourceConfig,
    mode: 'request' | 'retry' | 'probe',
  ): Promise<{ list: Listing; recovered: boolean }> {
    const key = ToolCatalog.cacheKey(workspace, source);
    const now = this.deps.now ?? Date.now;
    const leftOut = { list: { tools: [], ttlMs: 0, tasks: false }, recovered: false };
    const fromCache = (cached: CachedToolList) => {
      // Listed by another replica (or earlier here): the source answers again; report what that
      // listing learned.
      this.failures.recovered(workspace, source, key);
      const tools = this.derive(workspace, source, cached.tools);
      if (cached.checkedAt !== undefined && this.deps.statuses.get(workspace, source.name).status !== 'ready')
        this.deps.statuses.set(workspace, source.name, {
          status: 'ready',
          toolCount: tools.length,
          checkedAt: cached.checkedAt,
          error: undefined,
          era: cached.era,
          eraDetectedAt: cached.eraDetectedAt,
          transportInUse: cached.transportInUse,
          skippedTools: cached.skippedTools ?? [],
        });
      return {
        list: { tools, ttlMs: Math.max(0, cached.expiresAt - now()), tasks: cached.tasks === true },
        recovered: true,
      };
    };
    const cached = await this.cachedTools(key);
    count('agw.discovery.lookups', { result: cached === undefined ? 'miss' : 'hit' });
    if (cached !== undefined) return fromCache(cached);
    const skip = () => mode === 'request' && this.failures.isFailing(key);
    if (skip()) return leftOut;
    try {
      // One lister per key across replicas; the others wait for its result in the cache.
      let own: Listing | undefined;
      await this.deps.cache.exclusive(key, source.timeouts.listMs, async () => {
        if ((await this.cachedTools(key)) !== undefined) return;
        own = await this.listUpstream(workspace, source, key);
      });
      if (own !== undefined) return { list: own, recovered: true };
      const shared = await this.cachedTools(key);
      if (shared !== undefined) return fromCache(shared);
      // The other lister's attempt failed (or gave ttl 0): a probe counts that as its own.
      if (skip() || mode === 'probe') return leftOut;
      // Nothing cacheable came from the other lister (ttl 0, or it failed): list here.
      return { list: await this.listUpstream(workspace, source, key), recovered: true };
    } catch (error) {
      this.failures.failed(workspace, source, key, error);
      return leftOut;
    }
  }

  private async listUpstream(workspace: string, source: McpSourceConfig, key: string): Promise<Listing> {
    const now = this.deps.now ?? Date.now;
    const listed = await inSpan(
      `tools/list ${source.name}`,
      {
        kind: SpanKind.CLIENT,
        attributes: {
          'mcp.method.name': 'tools/list',
          'agw.source': source.name,
          'agw.upstream.transport': source.transport,
          'agw.breaker.state': this.deps.breakers.state(workspace, source.name),
        },
        classify: (error) => catalogueEntry(classifyUpstreamError(error)).errorClass,
      },
      async (span) => {
        const result = await this.deps.breakers.runDiscovery(workspace, source, () =>
          withSessionRecovery(this.deps.pool, workspace, source, async (connection) => ({
            ...(await connection.listTools(AbortSignal.timeout(source.timeouts.listMs))),
            era: connection.era,
            connectedAt: connection.connectedAt,
            transportInUse: connection.transport ?? source.transport,
            tasks: connection.tasks === true,
          })),
        );
        span.setAttribute('agw.upstream.era', result.era ?? 'unknown');
        span.setAttribute('agw.tools.count', result.tools.length);
        return result;
      },
    );
    const { ttlMs, era, connectedAt, transportInUse, tasks: taskSupport } = listed;
    const { accepted: tools, skipped: badNames } = screenNames(source.name, listed.tools);
    const skipped = [...printableSkips(listed.skipped), ...badNames];
    this.skipLog.report(key, { workspace, source: source.name }, skipped);
    // Honour the upstream's own hint when it gives one (0 means do not reuse); otherwise our default.
    const lifetime = Math.max(0, Math.min(ttlMs ?? this.deps.listTtlMs, MAX_LIST_TTL_MS));
    const checkedAt = new Date().toISOString();
    await this.deps.cache.set(
      key,
      {
        tools,
        expiresAt: now() + lifetime,
        checkedAt,
        era,
        eraDetectedAt: connectedAt,
        transportInUse,
        skippedTools: skipped,
        ...(taskSupport ? { tasks: true } : {}),
      },
      lifetime,
    );
    this.recent.set(key, { tools, listedAt: now() });
    const catalogTools = this.derive(workspace, source, tools);
    this.failures.recovered(workspace, source, key);
    this.deps.statuses.set(workspace, source.name, {
      status: 'ready',
      toolCount: catalogTools.length,
      checkedAt,
      error: undefined,
      era,
      eraDetectedAt: connectedAt,
      transportInUse,
      skippedTools: skipped,
    });
    return { tools: catalogTools, ttlMs: lifetime, tasks: taskSupport };
  }
}
