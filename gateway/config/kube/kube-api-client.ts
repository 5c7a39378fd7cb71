// The two requests the gateway makes to the Kubernetes API, over node:https (issue 26): a GET of
// one JSON document, and a GET whose body is a stream of newline-delimited JSON (a watch). Both
// verify the server against the configured CA (never disabled), send the current bearer token, and
// bound what they buffer: a document by maxBytes, a watch by the length of one line.
import type { IncomingMessage } from 'node:http';
import { Agent, request } from 'node:https';
import type { KubeClientConfig } from './kube-client-config.js';

/** An API answer other than 200. Only the status and reason: a body may quote object content. */
export class KubeApiError extends Error {
  override readonly name = 'KubeApiError';
  constructor(
    readonly status: number,
    readonly reason: string,
  ) {
    super(`the Kubernetes API answered ${status}${reason === '' ? '' : ` ${reason}`}`);
  }
}

/** A response or watch line longer than allowed; the request is abandoned. */
export class KubeResponseTooLargeError extends Error {
  override readonly name = 'KubeResponseTooLargeError';
  constructor(
    readonly what: 'response' | 'watch line',
    readonly limitBytes: number,
  ) {
    super(`a Kubernetes API ${what} exceeded ${limitBytes} bytes`);
  }
}

export type Query = Readonly<Record<string, string | undefined>>;

export interface StreamOptions {
  readonly signal: AbortSignal;
  readonly maxLineBytes: number;
  /** Ends the request when nothing arrived for this long (a dead connection). */
  readonly idleTimeoutMs: number;
  readonly onLine: (line: string) => void;
  /** The server accepted the watch (answered 200). */
  readonly onOpen?: () => void;
}

export class KubeApiClient {
  private readonly agent: Agent;

  constructor(private readonly config: KubeClientConfig) {
    // One keep-alive agent: every list and watch shares its connections. keepAlive also turns on
    // TCP keep-alive probes, so a silently dead peer ends a watch.
    this.agent = new Agent({
      keepAlive: true,
      ...(config.ca === undefined ? {} : { ca: config.ca }),
      ...(config.cert === undefined ? {} : { cert: config.cert }),
      ...(config.key === undefined ? {} : { key: config.key }),
      ...(config.serverName === undefined ? {} : { servername: config.serverName }),
      rejectUnauthorized: true,
    });
  }

  get server(): string {
    return this.config.server;
  }

  /** GETs one JSON document of at most maxBytes. */
  async getJson(path: string, query: Query, maxBytes: number, signal?: AbortSignal): Promise<unknown> {
    const response = await this.send(path, query, signal);
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of response as AsyncIterable<Buffer>) {
      size += chunk.length;
      if (size > maxBytes) {
        response.destroy();
        throw new KubeResponseTooLargeError('response', maxBytes);
      }
      chunks.push(chunk);
    }
    return JSON.parse(Buffer.concat(chunks, size).toString('utf8')) as unknown;
  }

  /** GETs a stream of JSON lines, calling onLine for each; resolves when the server ends it. */
  async stream(path: string, query: Query, options: StreamOptions): Promise<void> {
    const response = await this.send(path, query, options.signal);
    options.onOpen?.();
    await new Promise<void>((resolve, reject) => {
      let pending: Buffer[] = [];
      let pendingBytes = 0;
      let settled = false;
      const finish = (error?: Error) => {
        if (settled) return;
        settled = true;
        clearTimeout(idle);
        options.signal.removeEventListener('abort', aborted);
        if (error === undefined) resolve();
        else {
          response.destroy();
          reject(error);
        }
      };
      const aborted = () => finish(abortReason(options.signal));
      options.signal.addEventListener('abort', aborted, { once: true });
      const idle = setTimeout(() => finish(new Error('watch idle timeout')), options.idleTimeoutMs);
      response.on('data', (chunk: Buffer) => {
        idle.refresh();
        let start = 0;
        for (
          let newline = chunk.indexOf(10);
          newline !== -1 && !settled;
          newline = chunk.indexOf(10, start)
        ) {
          const piece = chunk.subarray(start, newline);
          start = newline + 1;
          if (pendingBytes + piece.length > options.maxLineBytes)
            return finish(new KubeResponseTooLargeError('watch line', options.maxLineBytes));
          const line = pendingBytes === 0 ? piece : Buffer.concat([...pending, piece]);
          pending = [];
          pendingBytes = 0;
          if (line.length === 0) continue;
          try {
            options.onLine(line.toString('utf8'));
          } catch (error) {
            return finish(error instanceof Error ? error : new Error('watch line handler failed'));
          }
        }
        if (settled || start >= chunk.length) return;
        const rest = chunk.subarray(start);
        if (pendingBytes + rest.length > options.maxLineBytes)
          return finish(new KubeResponseTooLargeError('watch line', options.maxLineBytes));
        pending.push(rest);
        pendingBytes += rest.length;
      });
      response.on('end', () => finish());
      response.on('error', (error) => finish(error));
      response.on('close', () =>
        finish(response.complete ? undefined : new Error('watch connection closed')),
      );
    });
  }

  close(): void {
    this.agent.destroy();
  }

  private async send(path: string, query: Query, signal: AbortSignal | undefined): Promise<IncomingMessage> {
    const url = new URL(this.config.server + path);
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, value);
    const token = await this.config.token();
    const response = await new Promise<IncomingMessage>((resolve, reject) => {
      const outgoing = request(url, {
        agent: this.agent,
        method: 'GET',
        headers: {
          accept: 'application/json',
          ...(token === undefined ? {} : { authorization: `Bearer ${token}` }),
        },
        ...(signal === undefined ? {} : { signal }),
      });
      outgoing.on('response', resolve);
      outgoing.on('error', (error: Error) => reject(error));
      outgoing.end();
    });
    if (response.statusCode === 200) return response;
    const status = response.statusCode ?? 0;
    const reason = await statusReason(response);
    throw new KubeApiError(status, reason);
  }
}

/** The `reason` of a Kubernetes Status body (e.g. Expired, Forbidden), read from at most 64 KiB. */
async function statusReason(response: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > 65_536) {
      response.destroy();
      return '';
    }
    chunks.push(chunk);
  }
  try {
    const reason = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { reason?: unknown }).reason;
    return typeof reason === 'string' && /^[A-Za-z]{1,64}$/.test(reason) ? reason : '';
  } catch {
    return '';
  }
}

function abortReason(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new Error('aborted');
}
