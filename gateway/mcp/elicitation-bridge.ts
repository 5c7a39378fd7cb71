// Bridges server→client requests of legacy upstreams (elicitation, sampling) into 2026 MRTR
// `input_required` results (spec §4.2 rule 5, duty 16). The upstream call stays open on a dedicated
// connection while the client answers; the client's retry carries a sealed `requestState` bound to
// its workspace, its key, the tool and the arguments, and is single-use. Bridged calls live in the memory of the
// replica that started them (the owner, sealed into the state) and expire; a retry that reaches
// another replica is forwarded to the owner (BridgeForwarder), which alone decides and answers.
// A call waiting for its client holds an upstream session, so waiting calls are bounded (issue
// 28.1): per key and per workspace (refused as rate_limited with a retry hint), by an idle timeout,
// and the session is let go as soon as nothing needs it. Until its first answer a call belongs to
// the client's request, like any tools/call, and is released at once when that goes away.
import { randomUUID } from 'node:crypto';
import { NAMESPACE_SEPARATOR } from '../discovery/index.js';
import type { BridgedConnection } from '../upstream/bridged-connection.js';
import { invalidRequestState, type BridgeForwarder, type BridgeResume } from './bridge-forwarder.js';
import type { McpResult } from './mcp-request.js';
import { argumentsDigest, RequestStateSeal, type SealedState } from './request-state-seal.js';
import { upstreamFailure } from './upstream-failure.js';
import { McpError } from './jsonrpc.js';
import { catalogueEntry } from '../errors/index.js';
import { StreamedInputBridge } from './streamed-input-bridge.js';

interface PendingInput {
  readonly key: string;
  readonly method: string;
  readonly params: Record<string, unknown>;
  readonly answer: (result: Record<string, unknown>) => void;
}

type Step =
  | { kind: 'input'; input: PendingInput }
  | { kind: 'done'; result: Record<string, unknown> }
  | { kind: 'failed'; error: unknown };

class BridgedCall {
  waiting: PendingInput | undefined;
  /** Counted against the caps from its first input request until it is released. */
  counted = false;
  released = false;
  /** When the idle timer releases it (while it waits for the client). */
  deadline: number | undefined;
  private buffered: Step[] = [];
  private wake: ((step: Step) => void) | undefined;
  private inputs = 0;
  timer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: string,
    readonly keyId: string,
    readonly workspace: string,
    readonly tool: string,
    readonly argsDigest: string,
  ) {}

  connection: BridgedConnection | undefined;

  push(step: Step): void {
    if (this.wake !== undefined) {
      const wake = this.wake;
      this.wake = undefined;
      wake(step);
    } else this.buffered.push(step);
  }

  next(): Promise<Step> {
    const step = this.buffered.shift();
    if (step !== undefined) return Promise.resolve(step);
    return new Promise((resolve) => (this.wake = resolve));
  }

  /** Called by the upstream connection for each server→client request of this call. */
  serverRequest(method: string, params: Record<string, unknown>): Promise<Record<string, unknown>> {
    return new Promise((answer) => {
      this.inputs += 1;
      this.push({ kind: 'input', input: { key: `input-${this.inputs}`, method, params, answer } });
    });
  }
}

export interface BridgeStart {
  readonly keyId: string;
  readonly workspace: string;
  /** The client's request: when it goes away before the first answer, the call is released (and
   * `connect` should stop with it). */
  readonly signal?: AbortSignal;
  readonly tool: string;
  readonly args: Record<string, unknown> | undefined;
  readonly connect: (
    onServerRequest: (method: string, params: Record<string, unknown>) => Promise<Record<string, unknown>>,
  ) => Promise<BridgedConnection>;
  readonly call: (connection: BridgedConnection) => Promise<Record<string, unknown>>;
}

export interface ElicitationBridgeOptions {
  readonly seal?: RequestStateSeal;
  /** How long a call waits for the client's answer. */
  readonly ttlMs?: number;
  readonly now?: () => number;
  /** Other replicas' calls; without it every state names this replica and nothing is forwarded. */
  readonly forwarder?: BridgeForwarder;
  /** The caps and idle timeout in force (read per call, so a config reload applies). */
  readonly limits?: () => BridgeLimits;
}

export interface BridgeLimits {
  readonly maxPendingPerKey: number;
  readonly maxPendingPerWorkspace: number;
  readonly idleTimeoutMs: number;
  /** 2025-era callers' calls on dedicated sessions at once, per workspace source (0: never). */
  readonly legacyCallerSessionsPerSource?: number;
}

const DEFAULT_LIMITS: BridgeLimits = {
  maxPendingPerKey: 16,
  maxPendingPerWorkspace: 256,
  idleTimeoutMs: 60_000,
  legacyCallerSessionsPerSource: 4,
};

/** A cap reached: the caller's own load, answered like a rate limit (class `request`). */
function pendingCapReached(scope: 'key' | 'workspace', limit: number, retryAfterS: number): McpError {
  return new McpError(
    429,
    catalogueEntry('rate_limited').jsonRpcCode,
    `Too many bridged calls waiting for an answer for this ${scope} (${limit}); answer one, or retry after ${retryAfterS} s.`,
    {
      code: 'rate_limited',
      class: 'request',
      retryAfterSeconds: retryAfterS,
      limit: { [`maxPendingPer${scope === 'key' ? 'Key' : 'Workspace'}`]: limit },
    },
    'request',
    { 'retry-after': String(retryAfterS) },
  );
}

export class ElicitationBridge {
  private readonly calls = new Map<string, BridgedCall>();
  readonly seal: RequestStateSeal;
  private readonly ttlOverrideMs: number | undefined;
  private readonly now: () => number;
  private readonly forwarder: BridgeForwarder | undefined;
  private readonly limits: () => BridgeLimits;
  /** Calls that asked their client for input and are not yet released, by key and by workspace. */
  private readonly waitingByKey = new Map<string, number>();
  private readonly waitingByWorkspace = new Map<string, number>();
  /** The same calls for 2025-era callers: questions on the call's stream, answers by POST (issue 24). */
  readonly streamed: StreamedInputBridge;

  constructor(options: ElicitationBridgeOptions = {}) {
    this.seal = options.seal ?? new RequestStateSeal();
    this.ttlOverrideMs = options.ttlMs;
    this.now = options.now ?? Date.now;
    this.forwarder = options.forwarder;
    this.limits = options.limits ?? (() => DEFAULT_LIMITS);
    this.forwarder?.serve((resume) => this.serveForwarded(resume));
    this.streamed = new StreamedInputBridge({
      seal: this.seal,
      forwarder: this.forwarder,
      now: this.now,
      idleTimeoutMs: () => this.ttlMs,
      hold: (keyId, workspace) => this.hold(keyId, workspace),
      sessionsPerSource: () => this.limits().legacyCallerSessionsPerSource ?? 4,
    });
  }

  /** Counts a streamed call against the caps MRTR flows share; throws the refusal when full. */
  private hold(keyId: string, workspace: string): () => void {
    const refusal = this.capReached(keyId, workspace);
    if (refusal !== undefined) throw refusal;
    this.countFor(keyId, workspace, 1);
    let held = true;
    return () => {
      if (held) this.countFor(keyId, workspace, -1);
      held = false;
    };
  }

  get open(): number {
    return this.calls.size;
  }

  /** Pending multi-round flows on this replica: calls that asked for input and are not released. */
  get pending(): number {
    let total = 0;
    for (const count of this.waitingByKey.values()) total += count;
    return total;
  }

  private get ttlMs(): number {
    return this.ttlOverrideMs ?? this.limits().idleTimeoutMs;
  }

  async start(request: BridgeStart): Promise<McpResult> {
    // A key (or workspace) with its cap of flows waiting is refused before any upstream work.
    const refusal = this.capReached(request.keyId, request.workspace);
    if (refusal !== undefined) throw refusal;
    const call = new BridgedCall(
      randomUUID(),
      request.keyId,
      request.workspace,
      request.tool,
      argumentsDigest(request.args),
    );
    // Until the first answer goes out, the call belongs to the client's request: if that goes
    // away (the client disconnected), nothing will ever retry it, so it is released at once.
    const abandon = () => {
      call.push({ kind: 'failed', error: new Error('client disconnected') });
      this.finish(call, false);
    };
    request.signal?.addEventListener('abort', abandon, { once: true });
    try {
      if (request.signal?.aborted === true) throw new Error('client disconnected');
      const connection = await request.connect((method, params) => call.serverRequest(method, params));
      if (call.released) {
        void connection.close().catch(() => undefined);
        throw new Error('client disconnected');
      }
      call.connection = connection;
      request.call(connection).then(
        (result) => this.settled(call, { kind: 'done', result }),
        (error: unknown) => this.settled(call, { kind: 'failed', error }),
      );
      return await this.advance(call);
    } catch (error) {
      this.finish(call, false);
      // Whatever the aborted handshake threw, the client left: not the upstream's failure.
      throw request.signal?.aborted === true ? new Error('client disconnected') : error;
    } finally {
      request.signal?.removeEventListener('abort', abandon);
    }
  }

  /** The refusal when the key or its workspace already has its cap of flows waiting. */
  private capReached(keyId: string, workspace: string): McpError | undefined {
    const limits = this.limits();
    if ((this.waitingByKey.get(keyId) ?? 0) >= limits.maxPendingPerKey)
      return pendingCapReached(
        'key',
        limits.maxPendingPerKey,
        this.retryAfterS((c) => c.keyId === keyId),
      );
    if ((this.waitingByWorkspace.get(workspace) ?? 0) >= limits.maxPendingPerWorkspace)
      return pendingCapReached(
        'workspace',
        limits.maxPendingPerWorkspace,
        this.retryAfterS((c) => c.workspace === workspace),
      );
    return undefined;
  }

  /** Seconds until the first of these flows is released by its idle timer (at least 1). */
  private retryAfterS(match: (call: BridgedCall) => boolean): number {
    let first: number | undefined;
    for (const call of this.calls.values())
      if (call.counted && call.deadline !== undefined && match(call))
        first = Math.min(first ?? call.deadline, call.deadline);
    const waitMs = first === undefined ? this.ttlMs : first - this.now();
    return Math.max(1, Math.ceil(waitMs / 1000));
  }

  private count(call: BridgedCall, delta: 1 | -1): void {
    this.countFor(call.keyId, call.workspace, delta);
  }

  private countFor(keyId: string, workspace: string, delta: 1 | -1): void {
    for (const [map, id] of [
      [this.waitingByKey, keyId],
      [this.waitingByWorkspace, workspace],
    ] as const) {
      const next = (map.get(id) ?? 0) + delta;
      if (next <= 0) map.delete(id);
      else map.set(id, next);
    }
  }

  /** The upstream call ended. While the call waits for its client, nothing needs the upstream
   * session any more: it goes now, and the outcome waits for the client's retry. */
  private settled(call: BridgedCall, step: Step): void {
    call.push(step);
    if (call.waiting === undefined) return;
    // Its question is moot; answered now so no late answer reaches a session carrying another call.
    call.waiting.answer({ action: 'cancel' });
    this.releaseConnection(call, step.kind === 'done');
  }

  /** The client's retry: continued here when this replica owns the call, else on its owner. */
  async resume(resume: BridgeResume, timeoutMs: number): Promise<McpResult> {
    const state = this.seal.open(resume.requestState, this.now());
    if (state === undefined) throw invalidRequestState();
    if (state.owner !== undefined && state.owner !== this.forwarder?.replica) {
      if (this.forwarder === undefined) throw invalidRequestState();
      return this.forwarder.forward(state.owner, resume, timeoutMs);
    }
    return this.continueHere(state, resume);
  }

  /** A retry another replica forwarded: never forwarded again; failures become the client's error. */
  private async serveForwarded(resume: BridgeResume): Promise<McpResult> {
    const state = this.seal.open(resume.requestState, this.now());
    if (state === undefined || state.owner !== this.forwarder?.replica) throw invalidRequestState();
    try {
      return await this.continueHere(state, resume);
    } catch (error) {
      throw upstreamFailure(error, resume.tool.split(NAMESPACE_SEPARATOR, 1)[0] ?? '');
    }
  }

  private continueHere(state: SealedState, resume: BridgeResume): Promise<McpResult> {
    const call = this.calls.get(state.call);
    if (
      call === undefined ||
      state.workspace !== resume.workspace ||
      call.workspace !== resume.workspace ||
      state.keyId !== resume.keyId ||
      state.tool !== resume.tool ||
      state.argsDigest !== argumentsDigest(resume.args) ||
      call.waiting?.key !== state.input
    ) {
      throw invalidRequestState();
    }
    const waiting = call.waiting;
    const responses =
      typeof resume.inputResponses === 'object' && resume.inputResponses !== null
        ? (resume.inputResponses as Record<string, unknown>)
        : {};
    const answer = responses[waiting.key];
    if (typeof answer !== 'object' || answer === null) {
      this.keep(call);
      return Promise.resolve(this.inputRequired(call, waiting));
    }
    // Taken before anything awaits: a concurrent replay of the same state finds nothing waiting.
    call.waiting = undefined;
    // Answered: the call runs again, bounded by its own call time-out rather than the idle timer.
    if (call.timer !== undefined) clearTimeout(call.timer);
    call.deadline = undefined;
    waiting.answer(answer as Record<string, unknown>);
    return this.advance(call);
  }

  /** Waits for the call's next step: a final result, a failure, or another input request. */
  private async advance(call: BridgedCall): Promise<McpResult> {
    const step = await call.next();
    if (step.kind === 'input') {
      if (!call.counted) {
        // Concurrent calls of one key may all reach their first question: the cap still holds.
        const refusal = this.capReached(call.keyId, call.workspace);
        if (refusal !== undefined) {
          step.input.answer({ action: 'cancel' });
          this.finish(call, false);
          throw refusal;
        }
        call.counted = true;
        this.count(call, 1);
      }
      call.waiting = step.input;
      this.keep(call);
      return this.inputRequired(call, step.input);
    }
    this.finish(call, step.kind === 'done');
    if (step.kind === 'failed') throw step.error;
    return step.result;
  }

  private inputRequired(call: BridgedCall, input: PendingInput): McpResult {
    const requestState = this.seal.seal({
      call: call.id,
      input: input.key,
      workspace: call.workspace,
      keyId: call.keyId,
      tool: call.tool,
      argsDigest: call.argsDigest,
      ...(this.forwarder === undefined ? {} : { owner: this.forwarder.replica }),
      exp: this.now() + this.ttlMs,
    });
    return {
      resultType: 'input_required',
      inputRequests: { [input.key]: { method: input.method, params: input.params } },
      requestState,
    };
  }

  /** (Re)starts the idle timer of a call waiting for its client. */
  private keep(call: BridgedCall): void {
    this.calls.set(call.id, call);
    if (call.timer !== undefined) clearTimeout(call.timer);
    const ttlMs = this.ttlMs;
    call.deadline = this.now() + ttlMs;
    call.timer = setTimeout(() => {
      // Nobody answered in time: decline upstream and let the call end.
      call.waiting?.answer({ action: 'cancel' });
      this.finish(call, false);
    }, ttlMs);
    call.timer.unref();
  }

  /** Releases a call once: its timer, its slot in the caps and its upstream session, which is
   * recycled when the call ended with its result (`reusable`) and closed otherwise. */
  private finish(call: BridgedCall, reusable: boolean): void {
    if (call.timer !== undefined) clearTimeout(call.timer);
    this.calls.delete(call.id);
    if (call.released) return;
    call.released = true;
    if (call.counted) this.count(call, -1);
    this.releaseConnection(call, reusable);
  }

  private releaseConnection(call: BridgedCall, reusable: boolean): void {
    const connection = call.connection;
    call.connection = undefined;
    if (connection === undefined) return;
    const released = reusable && connection.recycle !== undefined ? connection.recycle() : connection.close();
    void released.catch(() => undefined);
  }

  async close(): Promise<void> {
    this.streamed.close();
    const open = [...this.calls.values()];
    for (const call of open) {
      call.waiting?.answer({ action: 'cancel' });
      this.finish(call, false);
    }
    await this.forwarder?.close();
  }
}
