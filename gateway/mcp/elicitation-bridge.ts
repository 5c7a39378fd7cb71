// Bridges server→client requests of legacy upstreams (elicitation, sampling) into 2026 MRTR
// `input_required` results (spec §4.2 rule 5, duty 16). The upstream call stays open on a dedicated
// connection while the client answers; the client's retry carries a sealed `requestState` bound to
// its key, the tool and the arguments, and is single-use. Bridged calls live in the memory of the
// replica that started them (the owner, sealed into the state) and expire; a retry that reaches
// another replica is forwarded to the owner (BridgeForwarder), which alone decides and answers.
import { randomUUID } from 'node:crypto';
import { NAMESPACE_SEPARATOR } from '../discovery/index.js';
import type { BridgedConnection } from '../upstream/bridged-connection.js';
import { invalidRequestState, type BridgeForwarder, type BridgeResume } from './bridge-forwarder.js';
import type { McpResult } from './mcp-request.js';
import { argumentsDigest, RequestStateSeal, type SealedState } from './request-state-seal.js';
import { upstreamFailure } from './upstream-failure.js';

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
  private buffered: Step[] = [];
  private wake: ((step: Step) => void) | undefined;
  private inputs = 0;
  timer: NodeJS.Timeout | undefined;

  constructor(
    readonly id: string,
    readonly keyId: string,
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
}

export class ElicitationBridge {
  private readonly calls = new Map<string, BridgedCall>();
  readonly seal: RequestStateSeal;
  private readonly ttlMs: number;
  private readonly now: () => number;
  private readonly forwarder: BridgeForwarder | undefined;

  constructor(options: ElicitationBridgeOptions = {}) {
    this.seal = options.seal ?? new RequestStateSeal();
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
    this.now = options.now ?? Date.now;
    this.forwarder = options.forwarder;
    this.forwarder?.serve((resume) => this.serveForwarded(resume));
  }

  get open(): number {
    return this.calls.size;
  }

  async start(request: BridgeStart): Promise<McpResult> {
    const call = new BridgedCall(randomUUID(), request.keyId, request.tool, argumentsDigest(request.args));
    const connection = await request.connect((method, params) => call.serverRequest(method, params));
    call.connection = connection;
    request.call(connection).then(
      (result) => call.push({ kind: 'done', result }),
      (error: unknown) => call.push({ kind: 'failed', error }),
    );
    return this.advance(call);
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
    if (typeof answer !== 'object' || answer === null)
      return Promise.resolve(this.inputRequired(call, waiting));
    // Taken before anything awaits: a concurrent replay of the same state finds nothing waiting.
    call.waiting = undefined;
    waiting.answer(answer as Record<string, unknown>);
    return this.advance(call);
  }

  /** Waits for the call's next step: a final result, a failure, or another input request. */
  private async advance(call: BridgedCall): Promise<McpResult> {
    const step = await call.next();
    if (step.kind === 'input') {
      call.waiting = step.input;
      this.keep(call);
      return this.inputRequired(call, step.input);
    }
    this.finish(call);
    if (step.kind === 'failed') throw step.error;
    return step.result;
  }

  private inputRequired(call: BridgedCall, input: PendingInput): McpResult {
    const requestState = this.seal.seal({
      call: call.id,
      input: input.key,
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

  private keep(call: BridgedCall): void {
    this.calls.set(call.id, call);
    if (call.timer !== undefined) clearTimeout(call.timer);
    call.timer = setTimeout(() => {
      // Nobody answered in time: decline upstream and let the call end.
      call.waiting?.answer({ action: 'cancel' });
      this.finish(call);
    }, this.ttlMs);
    call.timer.unref();
  }

  private finish(call: BridgedCall): void {
    if (call.timer !== undefined) clearTimeout(call.timer);
    this.calls.delete(call.id);
    void call.connection?.close().catch(() => undefined);
  }

  async close(): Promise<void> {
    const open = [...this.calls.values()];
    for (const call of open) {
      call.waiting?.answer({ action: 'cancel' });
      this.finish(call);
    }
    await this.forwarder?.close();
  }
}
