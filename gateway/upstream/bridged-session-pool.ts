// Reuses bridged upstream sessions where the protocol allows (issue 28.1). A 2025-era
// server→client request names no call, so a session carries one bridged call at a time; once a
// call's result has arrived its session is parked, and the next bridged call of the same key to the
// same source (same capabilities) takes it instead of initialising a new one. Parked sessions are
// few (per source) and short-lived; a parked session the upstream has forgotten is replaced once.
import type { ClientCapabilities } from '@modelcontextprotocol/client';
import { mcpClientSdk } from './mcp-client-sdk.js';
import type { McpSourceConfig } from '../config/index.js';
import type {
  BridgedConnection,
  RebindableBridgedConnection,
  ServerRequestHandler,
} from './bridged-connection.js';

export type BridgedConnector = (
  source: McpSourceConfig,
  capabilities: ClientCapabilities,
  onServerRequest: ServerRequestHandler,
  workspace: string | undefined,
  signal: AbortSignal | undefined,
) => Promise<RebindableBridgedConnection>;

export interface BridgedIdleLimits {
  /** Parked sessions per workspace source, across keys; the oldest goes first. */
  readonly perSource: number;
  /** How long a parked session waits for its next call before it is ended. */
  readonly idleMs: number;
}

export const BRIDGED_IDLE_LIMITS: BridgedIdleLimits = { perSource: 4, idleMs: 30_000 };

export interface BridgedAcquire {
  readonly source: McpSourceConfig;
  readonly capabilities: ClientCapabilities;
  readonly onServerRequest: ServerRequestHandler;
  readonly workspace: string;
  /** Sessions are never shared across keys: an upstream may keep what one caller answered. */
  readonly keyId: string;
  readonly signal?: AbortSignal;
}

interface Parked {
  readonly sourceKey: string;
  readonly scope: string;
  readonly fingerprint: string;
  readonly connection: RebindableBridgedConnection;
  readonly timer: NodeJS.Timeout;
}

/** A parked session has no call: its server→client requests are refused. */
const idleHandler: ServerRequestHandler = () =>
  Promise.reject(new Error('no call is waiting on this session'));

function closeQuietly(connection: BridgedConnection): void {
  void connection.close().catch(() => undefined);
}

export class BridgedSessionPool {
  /** In parking order; small (at most `perSource` per workspace source). */
  private parked: Parked[] = [];
  private closed = false;

  constructor(
    private readonly connect: BridgedConnector,
    private readonly fingerprint: (source: McpSourceConfig) => string,
    private readonly limits: BridgedIdleLimits = BRIDGED_IDLE_LIMITS,
  ) {}

  /** Sessions parked now (for tests and diagnostics). */
  get idle(): number {
    return this.parked.length;
  }

  async acquire(request: BridgedAcquire): Promise<BridgedConnection> {
    const sourceKey = `${request.workspace}/${request.source.name}`;
    const scope = `${sourceKey}\u0000${request.keyId}\u0000${JSON.stringify(request.capabilities)}`;
    const fingerprint = this.fingerprint(request.source);
    const reused = this.take(scope, fingerprint);
    if (reused !== undefined) reused.bind(request.onServerRequest);
    const connection =
      reused ??
      (await this.connect(
        request.source,
        request.capabilities,
        request.onServerRequest,
        request.workspace,
        request.signal,
      ));
    return this.lease(connection, reused !== undefined, request, { sourceKey, scope, fingerprint });
  }

  /** Ends parked sessions whose source was removed or changed (`wanted`: sourceKey → fingerprint). */
  retain(wanted: ReadonlyMap<string, string>): void {
    for (const entry of [...this.parked])
      if (wanted.get(entry.sourceKey) !== entry.fingerprint) this.drop(entry);
  }

  async close(): Promise<void> {
    this.closed = true;
    const closing = this.parked.map((entry) => {
      clearTimeout(entry.timer);
      return entry.connection.close().catch(() => undefined);
    });
    this.parked = [];
    await Promise.all(closing);
  }

  private take(scope: string, fingerprint: string): RebindableBridgedConnection | undefined {
    for (let i = this.parked.length - 1; i >= 0; i -= 1) {
      const entry = this.parked[i] as Parked;
      if (entry.scope !== scope || entry.fingerprint !== fingerprint) continue;
      this.parked.splice(i, 1);
      clearTimeout(entry.timer);
      if (entry.connection.alive) return entry.connection;
      closeQuietly(entry.connection);
    }
    return undefined;
  }

  private park(connection: RebindableBridgedConnection, place: Omit<Parked, 'connection' | 'timer'>): void {
    if (this.closed || !connection.alive) return closeQuietly(connection);
    connection.bind(idleHandler);
    const sameSource = this.parked.filter((entry) => entry.sourceKey === place.sourceKey);
    if (sameSource.length >= this.limits.perSource && sameSource[0] !== undefined) this.drop(sameSource[0]);
    const entry: Parked = {
      ...place,
      connection,
      timer: setTimeout(() => this.drop(entry), this.limits.idleMs),
    };
    entry.timer.unref();
    this.parked.push(entry);
  }

  private drop(entry: Parked): void {
    clearTimeout(entry.timer);
    this.parked = this.parked.filter((other) => other !== entry);
    closeQuietly(entry.connection);
  }

  /** The call's view of its session: recycled into the pool, or closed, exactly once. */
  private lease(
    first: RebindableBridgedConnection,
    reused: boolean,
    request: BridgedAcquire,
    place: Omit<Parked, 'connection' | 'timer'>,
  ): BridgedConnection {
    let connection = first;
    let asked = false;
    let settled = false;
    const handler: ServerRequestHandler = (method, params) => {
      asked = true;
      return request.onServerRequest(method, params);
    };
    connection.bind(handler);
    const settle = (keep: boolean): Promise<void> => {
      if (settled) return Promise.resolve();
      settled = true;
      if (keep) {
        this.park(connection, place);
        return Promise.resolve();
      }
      return connection.close().catch(() => undefined);
    };
    return {
      callTool: async (name, args, signal, timeoutMs, notices, meta) => {
        try {
          return await connection.callTool(name, args, signal, timeoutMs, notices, meta);
        } catch (error) {
          // A parked session the upstream forgot (restart, expiry) answers 404 before the call
          // starts: run it once on a new session, so the caller never notices the reuse.
          if (!reused || asked || !(error instanceof mcpClientSdk().SdkHttpError) || error.status !== 404)
            throw error;
          closeQuietly(connection);
          reused = false;
          connection = await this.connect(
            request.source,
            request.capabilities,
            handler,
            request.workspace,
            request.signal,
          );
          if (settled) {
            closeQuietly(connection);
            throw error;
          }
          return connection.callTool(name, args, signal, timeoutMs, notices, meta);
        }
      },
      close: () => settle(false),
      recycle: () => settle(true),
    };
  }
}
