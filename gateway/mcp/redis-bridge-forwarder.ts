// BridgeForwarder over Redis pub/sub (issue 10 item 3): every replica listens on its own channel;
// a continuation for another replica's call is published on the owner's channel with a reply
// channel; the owner acknowledges at once, then publishes the result (or the McpError) back.
// Nothing is stored: answers and results only pass through Redis. A replica that is gone does not
// acknowledge within `ackMs` (on one server PUBLISH also says nobody listens; a Cluster counts only
// one node's subscribers, so there the acknowledgement decides), and a Redis that is down ends the
// wait too; either way the client is told the state expired and starts the call again. Log lines
// name replicas, never content. Messages are encrypted and bound to their channel (issue 28.8):
// whoever can subscribe in Redis reads no answer or result, and whoever can publish there cannot
// acknowledge, answer or resume anything.
import { randomUUID } from 'node:crypto';
import { Cluster } from 'ioredis';
import type { RedisClient } from '../shared-state/redis-connection.js';
import type { ValueCipher } from '../shared-state/value-cipher.js';
import { NAMESPACE_SEPARATOR } from '../discovery/index.js';
import type { Logger } from '../telemetry/logger.js';
import { within } from '../shared-state/within.js';
import {
  fromWire,
  invalidRequestState,
  toWire,
  type AnswerHandler,
  type BridgeForwarder,
  type BridgeResume,
  type ClientAnswer,
  type ResumeHandler,
  type WireError,
} from './bridge-forwarder.js';
import { McpError } from './jsonrpc.js';
import type { McpResult } from './mcp-request.js';
import { catalogueFailure } from './upstream-failure.js';

type Message =
  | { readonly t: 'resume'; readonly id: string; readonly from: string; readonly resume: BridgeResume }
  | { readonly t: 'answer'; readonly id: string; readonly from: string; readonly answer: ClientAnswer }
  | { readonly t: 'ack'; readonly id: string }
  | { readonly t: 'reply'; readonly id: string; readonly result?: McpResult; readonly error?: WireError };

export interface RedisBridgeForwarderOptions {
  readonly redis: RedisClient;
  /** The pub/sub connection (shared with other subscribers; messages are filtered by channel). */
  readonly subscriber: RedisClient;
  readonly keyPrefix: string;
  readonly replica: string;
  readonly timeoutMs: number;
  readonly logger: Logger;
  /** Encrypts every message (the shared-state encryption keys). */
  readonly cipher: ValueCipher;
  /** How long the owner has to acknowledge a forwarded continuation (default 2 s). */
  readonly ackMs?: number;
}

interface Waiting {
  acknowledged(): void;
  resolve(result: McpResult): void;
  reject(error: McpError): void;
}

export class RedisBridgeForwarder implements BridgeForwarder {
  readonly replica: string;
  private handler: ResumeHandler | undefined;
  private answerHandler: AnswerHandler | undefined;
  private readonly waiting = new Map<string, Waiting>();
  private readonly ownChannel: string;
  private readonly onMessage = (channel: string, sealed: string) => {
    if (channel !== this.ownChannel) return;
    const opened = this.options.cipher.decrypt(sealed, channel);
    if (opened !== undefined) void this.receive(opened.plain);
  };
  private readonly subscribe = () =>
    void this.options.subscriber.subscribe(this.ownChannel).catch(() => undefined);

  constructor(private readonly options: RedisBridgeForwarderOptions) {
    this.replica = options.replica;
    this.ownChannel = this.channel(options.replica);
    options.subscriber.on('ready', this.subscribe);
    if (options.subscriber.status === 'ready') this.subscribe();
    options.subscriber.on('message', this.onMessage);
  }

  private channel(replica: string): string {
    return `${this.options.keyPrefix}bridge:${replica}`;
  }

  serve(handler: ResumeHandler): void {
    this.handler = handler;
  }

  serveAnswers(handler: AnswerHandler): void {
    this.answerHandler = handler;
  }

  forward(owner: string, resume: BridgeResume, timeoutMs: number): Promise<McpResult> {
    const source = resume.tool.split(NAMESPACE_SEPARATOR, 1)[0] ?? '';
    return this.send(owner, (id) => ({ t: 'resume', id, from: this.replica, resume }), timeoutMs, source);
  }

  /** An answer travels like a continuation; the owner replies `{ accepted }`. */
  async forwardAnswer(owner: string, answer: ClientAnswer, timeoutMs: number): Promise<boolean> {
    try {
      const reply = await this.send(
        owner,
        (id) => ({ t: 'answer', id, from: this.replica, answer }),
        timeoutMs,
        '',
      );
      return reply['accepted'] === true;
    } catch {
      return false;
    }
  }

  private send(
    owner: string,
    message: (id: string) => Message,
    timeoutMs: number,
    source: string,
  ): Promise<McpResult> {
    const id = randomUUID();
    return new Promise<McpResult>((resolve, reject) => {
      const timer = setTimeout(() => {
        this.waiting.get(id)?.reject(catalogueFailure('upstream_timeout', source));
        this.options.logger.warn({ owner }, 'bridged call: no answer from the owning replica');
      }, timeoutMs);
      const ackTimer = setTimeout(() => {
        this.options.logger.warn(
          { owner },
          'bridged call: the owning replica did not acknowledge; it is gone',
        );
        this.waiting.get(id)?.reject(invalidRequestState());
      }, this.options.ackMs ?? 2000);
      const settle =
        <T>(done: (value: T) => void) =>
        (value: T) => {
          clearTimeout(timer);
          clearTimeout(ackTimer);
          this.waiting.delete(id);
          done(value);
        };
      this.waiting.set(id, {
        acknowledged: () => clearTimeout(ackTimer),
        resolve: settle(resolve),
        reject: settle(reject),
      });
      within(this.publish(this.channel(owner), message(id)), this.options.timeoutMs)
        .then((receivers) => {
          if (receivers === 0 && !(this.options.redis instanceof Cluster))
            this.waiting.get(id)?.reject(invalidRequestState());
        })
        .catch(() => {
          this.options.logger.warn({ owner }, 'bridged call: shared state unreachable; cannot continue it');
          this.waiting.get(id)?.reject(invalidRequestState());
        });
    });
  }

  private async receive(raw: string): Promise<void> {
    let message: Message;
    try {
      message = JSON.parse(raw) as Message;
    } catch {
      return;
    }
    if (message.t === 'ack') {
      this.waiting.get(message.id)?.acknowledged();
      return;
    }
    if (message.t === 'reply') {
      const waiting = this.waiting.get(message.id);
      if (waiting === undefined) return;
      if (message.error !== undefined) waiting.reject(fromWire(message.error));
      else waiting.resolve(message.result ?? {});
      return;
    }
    const handler = this.handler;
    const answerHandler = this.answerHandler;
    if (message.t === 'resume' ? handler === undefined : answerHandler === undefined) return;
    const replyTo = this.channel(message.from);
    const ack: Message = { t: 'ack', id: message.id };
    void this.publish(replyTo, ack).catch(() => undefined);
    let reply: Message;
    try {
      const result =
        message.t === 'resume'
          ? await (handler as ResumeHandler)(message.resume)
          : { accepted: await (answerHandler as AnswerHandler)(message.answer) };
      reply = { t: 'reply', id: message.id, result };
    } catch (error) {
      const failure = error instanceof McpError ? error : catalogueFailure('internal_error', '');
      reply = { t: 'reply', id: message.id, error: toWire(failure) };
    }
    await this.publish(replyTo, reply).catch(() => {
      this.options.logger.warn({ to: message.from }, 'bridged call: could not return the answer');
    });
  }

  private publish(channel: string, message: Message): Promise<number> {
    return this.options.redis.publish(channel, this.options.cipher.encrypt(JSON.stringify(message), channel));
  }

  close(): Promise<void> {
    this.options.subscriber.off('message', this.onMessage);
    this.options.subscriber.off('ready', this.subscribe);
    for (const waiting of this.waiting.values()) waiting.reject(invalidRequestState());
    return this.options.subscriber.unsubscribe(this.ownChannel).then(
      () => undefined,
      () => undefined,
    );
  }
}

/** Deletes the seal key earlier versions kept in Redis, in clear and without expiry: seal keys now
 * derive from the encryption Secret and are never stored (issue 28.8). Once, when Redis is ready. */
export function forgetLegacySealKey(redis: RedisClient, keyPrefix: string): void {
  const forget = () => void redis.del(`${keyPrefix}bridge:seal-key`).catch(() => undefined);
  if (redis.status === 'ready') forget();
  else redis.once('ready', forget);
}
