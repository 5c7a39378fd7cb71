// The upstream connection port: one live MCP client connection to an upstream source (HTTP
// Streamable, legacy HTTP+SSE or stdio), what the pool, discovery and the faces call on it, and the
// deps a connection is made with. Made by connect-upstream.ts; the SDK-backed one is sdk-connection.ts.
// Upstream credentials come from the source's secret references; the caller's key never leaves here.
import type { Progress } from '@modelcontextprotocol/client';
import type { McpSourceConfig, SecretReader } from '../config/index.js';
import type { NetworkGuard } from '../reach/index.js';
import type { Relay } from './modern-relay.js';
import type { ResourceSubscriber } from './resource-subscriptions.js';
import type { SessionStore } from './session-store.js';
import type { ListedTools } from './tool-listing.js';
import type { TokenSource, UpstreamTokens } from './token-source.js';
import type { WorkloadWakers } from './workload-waker.js';

export interface CallOptions {
  readonly signal: AbortSignal;
  readonly timeoutMs: number;
  /** Called for each upstream progress notification of this call (SDK-backed connections). */
  readonly onProgress?: (progress: Progress) => void;
  /** Called with the params of each `notifications/message` the upstream sends on this call's own
   * response stream (SDK-backed connections; see sdk-connection.ts). */
  readonly onLog?: (params: Record<string, unknown>) => void;
  /** `_meta` keys the request carries besides the gateway's own (the trace context, SEP-414). */
  readonly meta?: Readonly<Record<string, string>>;
}

/** All pages of a tool list (tool-listing.ts); `skipped` names the tools whose definition cannot be
 * used, with why (optional for twins that never skip). */
export type ToolList = Omit<ListedTools, 'skipped'> & { readonly skipped?: ListedTools['skipped'] };

/** What completion/complete sends upstream: the ref in the upstream's own names. */
export interface CompleteParams {
  readonly ref:
    | { readonly type: 'ref/prompt'; readonly name: string }
    | { readonly type: 'ref/resource'; readonly uri: string };
  readonly argument: { readonly name: string; readonly value: string };
  readonly context?: { readonly arguments?: Record<string, string> };
}

/** Resources, resource templates or prompts of one upstream, all pages. */
export interface ItemList {
  readonly items: readonly Record<string, unknown>[];
  /** The upstream's cache hint (the smallest over the pages); undefined when it gave none. */
  readonly ttlMs: number | undefined;
}

export interface UpstreamEvents {
  /** The upstream said its tool, prompt or resource list changed (notifications/…/list_changed). */
  listChanged(kind?: 'tools' | 'prompts' | 'resources'): void;
  /** The upstream said a subscribed resource changed (notifications/resources/updated, issue 24). */
  resourceUpdated?(uri: string): void;
}

/** 2025-11-25 experimental tasks of a legacy upstream that declared `tasks.requests.tools.call` (issue 43). */
export interface LegacyTaskCalls {
  /** tools/call with `params.task` (`{ttl}` when given, else `{}`); the upstream's raw result (`{task}`, or a complete result). */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    task: { ttl?: number },
    options: CallOptions,
  ): Promise<Record<string, unknown>>;
  /** tasks/get, tasks/result or tasks/cancel with the upstream's task id; the raw result. */
  request(
    method: 'tasks/get' | 'tasks/result' | 'tasks/cancel',
    taskId: string,
    options: CallOptions,
  ): Promise<Record<string, unknown>>;
}

export interface UpstreamConnection {
  listTools(signal: AbortSignal): Promise<ToolList>;
  /** When this connection (and so its era detection) was made. */
  readonly connectedAt: string;
  /** The transport actually in use (a Streamable HTTP source may turn out to be HTTP+SSE). */
  readonly transport?: McpSourceConfig['transport'];
  /** Lists resources or prompts (all pages); empty when the upstream does not offer them. */
  listResources(signal: AbortSignal): Promise<ItemList>;
  listPrompts(signal: AbortSignal): Promise<ItemList>;
  /** Lists resource templates (all pages); empty when the upstream does not offer resources. */
  listResourceTemplates(signal: AbortSignal): Promise<ItemList>;
  /** completion/complete with the upstream's own `ref`; no suggestions when it offers none. */
  complete(params: CompleteParams, options: CallOptions): Promise<Record<string, unknown>>;
  readResource(uri: string, options: CallOptions): Promise<Record<string, unknown>>;
  getPrompt(
    name: string,
    args: Record<string, string> | undefined,
    options: CallOptions,
  ): Promise<Record<string, unknown>>;
  /** Calls one tool by its upstream name and returns the upstream's result object as received. */
  callTool(
    name: string,
    args: Record<string, unknown> | undefined,
    options: CallOptions,
  ): Promise<Record<string, unknown>>;
  readonly era: string | undefined;
  /** The upstream session of a 2025-era Streamable HTTP connection (never shown to clients). */
  readonly sessionId?: string | undefined;
  /** Present for 2026-07-28 HTTP upstreams: the byte-faithful relay (D4). */
  readonly relay: Relay | undefined;
  /** The upstream runs tasks (issue 43): a 2026 upstream with the relay advertised the tasks
   * extension (`io.modelcontextprotocol/tasks: {}` in server/discover), or a 2025-era upstream
   * declared `tasks.requests.tools.call` in initialize (then `legacyTasks` is set). */
  readonly tasks?: boolean;
  /** The 2025-11-25 experimental task requests of a legacy upstream that declared
   * `tasks.requests.tools.call`; they go over this connection's own session, where its tasks live. */
  readonly legacyTasks?: LegacyTaskCalls;
  /** Resource subscriptions on this connection (issue 24; resource-subscriptions.ts). */
  readonly subscriptions?: ResourceSubscriber;
  close(): Promise<void>;
}

export interface ConnectDeps {
  readonly secrets: SecretReader;
  readonly clientInfo: { readonly name: string; readonly version: string };
  /** Where 2025-era upstream sessions are shared between replicas (issue 10); none by default. */
  readonly sessions?: SessionStore;
  /** The checked network path of a workspace under the tenant reach policy (D19); absent or
   * answering undefined: connections are not bounded (the embedded file without a policy). */
  readonly network?: (workspace: string) => NetworkGuard | undefined;
  /** Set per connection from `network`: the guard this connection dials through. */
  readonly guard?: NetworkGuard;
  /** This replica's upstream tokens (issue 29); absent: static credentials only. */
  readonly tokens?: UpstreamTokens;
  /** Set per connection by scopedDeps: the credential of every hop it makes. */
  readonly credentials?: TokenSource;
  /** Scale to zero (D25): wakes sources whose workload mark names a wake endpoint; absent: such
   * sources are dialled like any other (a sleeping one is refused). */
  readonly wakers?: WorkloadWakers;
}
