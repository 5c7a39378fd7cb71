// Bridges server→client requests of legacy upstreams (elicitation, sampling) into 2026 MRTR
// `input_required` results (spec §4.2 rule 5, duty 16). The upstream call stays open on a dedicated
// connection while the client answers; the client's retry carries a sealed `requestState` bound to
// its key, the tool and the arguments, and is single-use. Bridged calls live in this process's
// memory and expire; in a multi-replica deployment retries need the same replica (sticky routing).
import { randomUUID } from 'node:crypto';
import type { BridgedConnection } from '../upstream/bridged-connection.js';
import { McpError } from './jsonrpc.js';
import type { McpResult } from './mcp-request.js';
import { RPC } from './protocol.js';
import { argumentsDigest, RequestStateSeal } from './request-state-seal.js';

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

export class ElicitationBridge {
  private readonly calls = new Map<string, BridgedCall>();

  constructor(
    private readonly seal: RequestStateSeal = new RequestStateSeal(),
    private readonly ttlMs = 5 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

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

  async resume(
    keyId: string,
    tool: string,
    args: Record<string, unknown> | undefined,
    requestState: string,
    inputResponses: unknown,
  ): Promise<McpResult> {
    const state = this.seal.open(requestState, this.now());
    const call = state === undefined ? undefined : this.calls.get(state.call);
    if (
      state === undefined ||
      call === undefined ||
      state.keyId !== keyId ||
      state.tool !== tool ||
      state.argsDigest !== argumentsDigest(args) ||
      call.waiting?.key !== state.input
    ) {
      throw new McpError(200, RPC.invalidParams, 'Invalid or expired requestState.', {
        reason: 'invalid_request_state',
      });
    }
    const waiting = call.waiting;
    const responses =
      typeof inputResponses === 'object' && inputResponses !== null
        ? (inputResponses as Record<string, unknown>)
        : {};
    const answer = responses[waiting.key];
    if (typeof answer !== 'object' || answer === null) return this.inputRequired(call, waiting);
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
    await Promise.resolve();
  }
}
