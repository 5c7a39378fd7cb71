// Where a bridged call's continuation goes when it reaches a replica that does not hold the call
// (issue 10 item 3). The call's upstream connection lives in one replica's memory (its owner, named
// in the sealed state); any other replica forwards the client's retry there and relays the answer.
// The owner re-checks everything (seal, workspace, key, tool, arguments, the input it waits for), so the
// single-use guarantee is the owner's and holds however many replicas a replay goes through.
import { McpError } from './jsonrpc.js';
import type { McpResult } from './mcp-request.js';
import type { ErrorClass } from '../errors/index.js';

/** A client's retry of a bridged call, as the dispatcher received it. */
export interface BridgeResume {
  readonly workspace: string;
  readonly keyId: string;
  readonly tool: string;
  readonly args: Record<string, unknown> | undefined;
  readonly requestState: string;
  readonly inputResponses: unknown;
}

export type ResumeHandler = (resume: BridgeResume) => Promise<McpResult>;

/** A 2025-era client's answer to a server→client request (issue 24), as the route received it. */
export interface ClientAnswer {
  readonly workspace: string;
  readonly keyId: string;
  /** The JSON-RPC id as sent: the gateway-minted, sealed id of the question it answers. */
  readonly id: unknown;
  readonly result?: unknown;
  readonly error?: unknown;
}

/** True when the call it answers took it; false for every kind of mismatch alike. */
export type AnswerHandler = (answer: ClientAnswer) => Promise<boolean>;

export interface BridgeForwarder {
  /** This replica's id, sealed into every state it mints. */
  readonly replica: string;
  /** Continues the call on its owner; rejects with an McpError (the owner's, or "expired" when the
   * owner cannot be reached within `timeoutMs`). */
  forward(owner: string, resume: BridgeResume, timeoutMs: number): Promise<McpResult>;
  /** Serves the continuations other replicas forward here. */
  serve(handler: ResumeHandler): void;
  /** Hands a client's answer to the replica whose call asked; false when the owner did not take it
   * or cannot be reached within `timeoutMs`. */
  forwardAnswer(owner: string, answer: ClientAnswer, timeoutMs: number): Promise<boolean>;
  /** Serves the answers other replicas forward here. */
  serveAnswers(handler: AnswerHandler): void;
  close(): Promise<void>;
}

export function invalidRequestState(): McpError {
  return new McpError(200, -32602, 'Invalid or expired requestState.', { reason: 'invalid_request_state' });
}

/** An McpError as it crosses between replicas (plain JSON). */
export interface WireError {
  readonly httpStatus: number;
  readonly rpcCode: number;
  readonly message: string;
  readonly data?: Record<string, unknown>;
  readonly errorClass: ErrorClass;
}

export function toWire(error: McpError): WireError {
  return {
    httpStatus: error.httpStatus,
    rpcCode: error.rpcCode,
    message: error.message,
    ...(error.data === undefined ? {} : { data: { ...error.data } }),
    errorClass: error.errorClass,
  };
}

export function fromWire(wire: WireError): McpError {
  return new McpError(wire.httpStatus, wire.rpcCode, wire.message, wire.data, wire.errorClass);
}

/** In-process twin: replicas in one process (unit tests), joined by a shared hub. */
export class MemoryBridgeHub {
  private readonly handlers = new Map<string, ResumeHandler>();
  private readonly answerHandlers = new Map<string, AnswerHandler>();

  forwarder(replica: string): BridgeForwarder {
    return {
      replica,
      forward: async (owner, resume) => {
        const handler = this.handlers.get(owner);
        if (handler === undefined) throw invalidRequestState();
        // Through the same wire shape as Redis, so both twins fail alike.
        try {
          return structuredClone(await handler(structuredClone(resume)));
        } catch (error) {
          throw error instanceof McpError ? fromWire(toWire(error)) : error;
        }
      },
      serve: (handler) => void this.handlers.set(replica, handler),
      forwardAnswer: async (owner, answer) => {
        const handler = this.answerHandlers.get(owner);
        return handler === undefined ? false : handler(structuredClone(answer));
      },
      serveAnswers: (handler) => void this.answerHandlers.set(replica, handler),
      close: () => {
        this.handlers.delete(replica);
        this.answerHandlers.delete(replica);
        return Promise.resolve();
      },
    };
  }
}
