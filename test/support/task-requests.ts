// Raw 2026-07-28 task requests (issue 43, SEP-2663) for the tasks tests: the SDK v2 client refuses a
// task result on tools/call (UNSUPPORTED_RESULT_TYPE), so the requests are made on the wire, with the
// tasks extension in the per-request client capabilities and `Mcp-Name: <taskId>` on tasks/*.
import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { createTaskSessionFromClient, type TaskEnabledSession } from '@modelcontextprotocol/ext-tasks/client';
import type { RawClientDispatch } from '@modelcontextprotocol/ext-tasks/client';
import { MODERN_META, mcpPost } from './gateway-harness.js';

export const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';

export const TASKS_META = {
  ...MODERN_META,
  'io.modelcontextprotocol/clientCapabilities': { extensions: { [TASKS_EXTENSION]: {} } },
};

export interface RpcAnswer {
  readonly status: number;
  readonly result?: Record<string, unknown>;
  readonly error?: { code: number; message: string; data?: unknown };
}

async function answer(response: Response): Promise<RpcAnswer> {
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const json = type.startsWith('text/event-stream')
    ? (text
        .split('\n')
        .filter((line) => line.startsWith('data:'))
        .map((line) => JSON.parse(line.slice(5)) as Record<string, unknown>)
        .find((message) => message['id'] !== undefined) ?? {})
    : (JSON.parse(text) as Record<string, unknown>);
  return { status: response.status, ...(json as object) };
}

/** tools/call, declaring the tasks extension unless `declare` is false. */
export async function callTool(
  url: string,
  key: string,
  name: string,
  args: Record<string, unknown>,
  declare = true,
): Promise<RpcAnswer> {
  return answer(
    await mcpPost(url, key, {
      method: 'tools/call',
      params: { _meta: declare ? TASKS_META : MODERN_META, name, arguments: args },
    }),
  );
}

export async function taskRequest(
  url: string,
  key: string,
  method: 'tasks/get' | 'tasks/cancel' | 'tasks/update',
  taskId: string,
  extra: Record<string, unknown> = {},
): Promise<RpcAnswer> {
  return answer(
    await mcpPost(
      url,
      key,
      { method, params: { _meta: TASKS_META, taskId, ...extra } },
      { 'mcp-name': taskId },
    ),
  );
}

/** Polls tasks/get until the task is terminal (or `timeoutMs` passes). */
export async function pollTask(
  url: string,
  key: string,
  taskId: string,
  timeoutMs = 10_000,
): Promise<RpcAnswer> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const got = await taskRequest(url, key, 'tasks/get', taskId);
    const status = got.result?.['status'];
    if (got.error !== undefined || ['completed', 'failed', 'cancelled'].includes(String(status))) return got;
    if (Date.now() > deadline) throw new Error(`task still ${String(status)}`);
    await new Promise((resolve) => setTimeout(resolve, Number(got.result?.['pollIntervalMs'] ?? 100)));
  }
}

/** The reference requester library (`@modelcontextprotocol/ext-tasks`) over an SDK v2 client of the
 * gateway: for a 2026 server it needs the host's own POST (`rawDispatch`), which sends the header set
 * with the key, the context headers ext-tasks asks for merged case-insensitively. */
export async function extTasksSession(
  url: string,
  key: string,
): Promise<{
  session: TaskEnabledSession;
  client: Client;
}> {
  const client = new Client(
    { name: 'ext-tasks-it', version: '1.0.0' },
    { versionNegotiation: { mode: 'auto' } },
  );
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { authorization: `Bearer ${key}` } },
    }),
  );
  let nextId = 1;
  const rawDispatch: RawClientDispatch = async (request, options) => {
    const body = { jsonrpc: '2.0', id: nextId++, ...(request as Record<string, unknown>) } as unknown as {
      method: string;
      params?: Record<string, unknown>;
    };
    const params = body.params ?? {};
    const headers = new Headers({
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': body.method,
      authorization: `Bearer ${key}`,
    });
    const name = body.method === 'tools/call' ? params['name'] : params['taskId'];
    if (typeof name === 'string') headers.set('mcp-name', name);
    for (const [header, value] of Object.entries(options?.context?.headers ?? {})) headers.set(header, value);
    const answered = await answer(
      await fetch(`${url}/mcp`, {
        method: 'POST',
        headers,
        body: JSON.stringify(body),
        ...(options?.signal === undefined ? {} : { signal: options.signal }),
      }),
    );
    return answered.error !== undefined
      ? { kind: 'error', error: answered.error as never }
      : { kind: 'result', result: answered.result as never };
  };
  const session = createTaskSessionFromClient(client, {
    endpointId: 'gateway',
    rawDispatch,
    v2RequestFraming: {
      protocolVersion: '2026-07-28',
      clientInfo: { name: 'ext-tasks-it', version: '1.0.0' },
      clientCapabilities: {},
    },
  });
  return { session, client };
}
