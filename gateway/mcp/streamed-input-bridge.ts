// Server→client requests of a legacy upstream for 2025-era callers (issue 24). The call runs on a
// dedicated upstream connection (the elicitation bridge's, with its caps and idle timeout); each
// `elicitation/create` or `sampling/createMessage` goes to the client on the call's own SSE stream
// under a gateway-minted id (a seal binding the key, the call and the question, with an expiry and
// the owning replica), and the client's answer is a separate POST of a JSON-RPC response. That POST
// may reach any replica: one that does not hold the call hands it to the owner (BridgeForwarder),
// which re-checks everything. Every mismatch (another key, a replay, a forged, expired or unknown
// id, a call that ended) is one and the same refusal. A call waits for one answer at a time.
import { randomUUID } from 'node:crypto';
import type { BridgedConnection, ServerRequestHandler } from '../upstream/index.js';
import type { BridgeForwarder, ClientAnswer } from './bridge-forwarder.js';
import { McpError } from './jsonrpc.js';
import type { McpResult } from './mcp-request.js';
import { RPC } from '../protocol/index.js';
import { argumentsDigest, type RequestStateSeal } from './request-state-seal.js';

/** The largest answer (its `result` or `error`, serialised) passed on to an upstream. */
export const MAX_ANSWER_BYTES = 512 * 1024;
/** The longest error message from a client passed on to an upstream. */
const MAX_ERROR_MESSAGE = 512;
/** The sealed state's `input` of a streamed question; an MRTR requestState never has it. */
const QUESTION = 'answer-';

/** The one refusal of a response POST that answers nothing: the same for every reason. */
export function unmatchedResponse(): McpError {
  return new McpError(400, RPC.invalidRequest, 'Invalid Request: this response answers no pending request.');
}

function answerTooLarge(): McpError {
  return new McpError(
    413,
    RPC.invalidRequest,
    `Invalid Request: an answer is at most ${MAX_ANSWER_BYTES} bytes.`,
    {
      limit: { maxAnswerBytes: MAX_ANSWER_BYTES },
    },
  );
}

function unanswered(method: string, idleMs: number): McpError {
  return new McpError(
    200,
    RPC.invalidRequest,
    `The client did not answer the server's ${method} request within ${Math.ceil(idleMs / 1000)} s; the call was ended.`,
  );
}

/** A client's JSON-RPC error, as the upstream receives it (the SDK sends `code` and `message`). */
class ClientAnswerError extends Error {
  constructor(
    readonly code: number,
    message: string,
  ) {
    super(message);
  }
}

function clientError(error: unknown): ClientAnswerError {
  const record = typeof error === 'object' && error !== null ? (error as Record<string, unknown>) : {};
  const code = Number.isSafeInteger(record['code']) ? (record['code'] as number) : RPC.internalError;
  const message =
    typeof record['message'] === 'string' ? record['message'] : 'The client answered with an error.';
  return new ClientAnswerError(code, message.slice(0, MAX_ERROR_MESSAGE));
}

interface Question {
  readonly input: string;
  readonly method: string;
  readonly resolve: (result: Record<string, unknown>) => void;
  readonly reject: (error: Error) => void;
}

class StreamedCall {
  question: Question | undefined;
  /** Releases its slot in the caps; set from its first question. */
  held: (() => void) | undefined;
  timer: NodeJS.Timeout | undefined;
  questions = 0;
  ended = false;
  fail: (error: unknown) => void = () => undefined;

  constructor(
    readonly id: string,
    readonly keyId: string,
    readonly workspace: string,
    readonly tool: string,
    readonly argsDigest: string,
  ) {}
}

export interface StreamedStart {
  readonly keyId: string;
  readonly workspace: string;
  readonly tool: string;
  readonly args: Record<string, unknown> | undefined;
  /** The client's request: when it goes away, the call and its upstream connection are released. */
  readonly signal: AbortSignal;
  /** Writes on the call's SSE stream. */
  readonly notify: (message: Record<string, unknown>) => void;
  readonly connect: (onServerRequest: ServerRequestHandler) => Promise<BridgedConnection>;
  readonly call: (connection: BridgedConnection) => Promise<Record<string, unknown>>;
}

export interface StreamedInputOptions {
  readonly seal: RequestStateSeal;
  readonly forwarder: BridgeForwarder | undefined;
  readonly now: () => number;
  readonly idleTimeoutMs: () => number;
  /** Counts a call against the bridge's caps (throws the refusal when full); returns the release. */
  readonly hold: (keyId: string, workspace: string) => () => void;
  /** How many calls may hold a dedicated session per workspace source at once (0: none). */
  readonly sessionsPerSource: () => number;
}

export class StreamedInputBridge {
  private readonly calls = new Map<string, StreamedCall>();
  /** Calls running on dedicated sessions now, by workspace source. */
  private readonly sessionsInUse = new Map<string, number>();

  constructor(private readonly options: StreamedInputOptions) {
    options.forwarder?.serveAnswers((answer) => Promise.resolve(this.takeHere(answer)));
  }

  /** Calls waiting for their client's answer on this replica. */
  get waiting(): number {
    let count = 0;
    for (const call of this.calls.values()) if (call.question !== undefined) count += 1;
    return count;
  }

  /** A place for one call on a dedicated session of `source`, or undefined when the source has
   * `sessionsPerSource` of them running: a dedicated session is an upstream session (for a stdio
   * source, a process) per concurrent call, so under load the rest share the pooled session. */
  reserve(workspace: string, source: string): (() => void) | undefined {
    const place = JSON.stringify([workspace, source]);
    const inUse = this.sessionsInUse.get(place) ?? 0;
    if (inUse >= this.options.sessionsPerSource()) return undefined;
    this.sessionsInUse.set(place, inUse + 1);
    let held = true;
    return () => {
      if (!held) return;
      held = false;
      const left = (this.sessionsInUse.get(place) ?? 1) - 1;
      if (left <= 0) this.sessionsInUse.delete(place);
      else this.sessionsInUse.set(place, left);
    };
  }

  async run(start: StreamedStart): Promise<McpResult> {
    const call = new StreamedCall(
      randomUUID(),
      start.keyId,
      start.workspace,
      start.tool,
      argumentsDigest(start.args),
    );
    const failed = new Promise<never>((_resolve, reject) => (call.fail = reject));
    failed.catch(() => undefined);
    const abandon = () => call.fail(new Error('client disconnected'));
    start.signal.addEventListener('abort', abandon, { once: true });
    let connection: BridgedConnection | undefined;
    let clean = false;
    try {
      if (start.signal.aborted) throw new Error('client disconnected');
      connection = await start.connect((method, params) => this.ask(call, start, method, params));
      if (start.signal.aborted) throw new Error('client disconnected');
      this.calls.set(call.id, call);
      const outcome = start.call(connection);
      outcome.catch(() => undefined);
      const result = await Promise.race([outcome, failed]);
      clean = true;
      return result;
    } finally {
      start.signal.removeEventListener('abort', abandon);
      this.end(call);
      // Recycled only after a clean result; a call cut short ends its upstream session.
      if (connection !== undefined) {
        const release = clean && connection.recycle !== undefined ? connection.recycle() : connection.close();
        void release.catch(() => undefined);
      }
    }
  }

  /** The upstream asks the client something: sent on the call's stream, answered by a later POST. */
  private ask(
    call: StreamedCall,
    start: StreamedStart,
    method: string,
    params: Record<string, unknown>,
  ): Promise<Record<string, unknown>> {
    if (call.ended) return Promise.reject(new Error('the call has ended'));
    if (call.question !== undefined)
      return Promise.reject(new ClientAnswerError(RPC.invalidRequest, 'One request at a time per call.'));
    if (call.held === undefined) {
      try {
        call.held = this.options.hold(call.keyId, call.workspace);
      } catch (refusal) {
        call.fail(refusal);
        return Promise.reject(new Error('too many calls waiting'));
      }
    }
    call.questions += 1;
    const input = `${QUESTION}${call.questions}`;
    const idleMs = this.options.idleTimeoutMs();
    const id = this.options.seal.seal({
      call: call.id,
      input,
      workspace: call.workspace,
      keyId: call.keyId,
      tool: call.tool,
      argsDigest: call.argsDigest,
      ...(this.options.forwarder === undefined ? {} : { owner: this.options.forwarder.replica }),
      exp: this.options.now() + idleMs,
    });
    return new Promise((resolve, reject) => {
      call.question = { input, method, resolve, reject };
      // Nobody answered in time: the call ends, and its upstream session with it.
      call.timer = setTimeout(() => call.fail(unanswered(method, idleMs)), idleMs);
      call.timer.unref();
      start.notify({ jsonrpc: '2.0', id, method, params });
    });
  }

  /** A response POST: taken here, handed to the owning replica, or refused (the same for all). */
  async answer(answer: ClientAnswer): Promise<McpError | undefined> {
    const payload = answer.result ?? answer.error;
    if (Buffer.byteLength(JSON.stringify(payload) ?? '') > MAX_ANSWER_BYTES) return answerTooLarge();
    const state = this.opened(answer);
    if (state === undefined) return unmatchedResponse();
    const forwarder = this.options.forwarder;
    let taken: boolean;
    if (state.owner !== undefined && state.owner !== forwarder?.replica) {
      taken =
        forwarder === undefined
          ? false
          : await forwarder.forwardAnswer(state.owner, answer, this.options.idleTimeoutMs());
    } else taken = this.takeHere(answer);
    return taken ? undefined : unmatchedResponse();
  }

  private opened(answer: ClientAnswer) {
    if (typeof answer.id !== 'string') return undefined;
    const state = this.options.seal.open(answer.id, this.options.now());
    // Workspace and key are checked before anything is forwarded: an answer never travels for
    // another workspace's caller or another key.
    if (
      state === undefined ||
      state.workspace !== answer.workspace ||
      state.keyId !== answer.keyId ||
      !state.input.startsWith(QUESTION)
    )
      return undefined;
    return state;
  }

  /** On the owner: everything is checked again, and the question is taken before anything else. */
  private takeHere(answer: ClientAnswer): boolean {
    const state = this.opened(answer);
    const call = state === undefined ? undefined : this.calls.get(state.call);
    const question = call?.question;
    if (state === undefined || call === undefined || question === undefined || question.input !== state.input)
      return false;
    call.question = undefined;
    clearTimeout(call.timer);
    if (answer.error !== undefined) question.reject(clientError(answer.error));
    else if (typeof answer.result === 'object' && answer.result !== null && !Array.isArray(answer.result))
      question.resolve(answer.result as Record<string, unknown>);
    else
      question.reject(new ClientAnswerError(RPC.invalidParams, 'The client answered with no result object.'));
    return true;
  }

  /** Releases a call once: its timer, its question (declined upstream) and its slot in the caps. */
  private end(call: StreamedCall): void {
    if (call.ended) return;
    call.ended = true;
    this.calls.delete(call.id);
    clearTimeout(call.timer);
    call.question?.reject(new Error('the call has ended'));
    call.question = undefined;
    call.held?.();
  }

  close(): void {
    for (const call of [...this.calls.values()]) call.fail(new Error('gateway shutting down'));
  }
}
