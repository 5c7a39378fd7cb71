// The console's only way to the gateway: the ordinary endpoints with `Authorization: Bearer <key>`
// and `?response_format=json`, same origin, no cookies, no referrer, no cache. The key travels in
// that header only. A refused key (401) signs the page out.
export interface ErrorBody {
  readonly error?: { readonly code?: string; readonly class?: string; readonly message?: string };
}

export class ApiError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code: string | undefined,
    readonly errorClass: string | undefined,
  ) {
    super(message);
  }
}

export class GatewayApi {
  constructor(
    private readonly key: string,
    private readonly onUnauthorized: (message: string) => void,
  ) {}

  get<T>(path: string): Promise<T> {
    return this.rest<T>('GET', path);
  }

  post<T>(path: string, body: unknown): Promise<T> {
    return this.rest<T>('POST', path, body);
  }

  /** A raw request to the gateway with the key (used by the MCP client for /mcp). */
  async send(path: string, init: { method: string; headers: Record<string, string>; body?: string }) {
    const response = await fetch(path, {
      method: init.method,
      headers: { ...init.headers, authorization: `Bearer ${this.key}` },
      ...(init.body === undefined ? {} : { body: init.body }),
      cache: 'no-store',
      credentials: 'omit',
      referrerPolicy: 'no-referrer',
      redirect: 'error',
    });
    if (response.status === 401) {
      const message = await errorMessage(response);
      this.onUnauthorized(message);
      throw new ApiError(message, 401, 'unauthenticated', 'proxy_authorization');
    }
    return response;
  }

  private async rest<T>(method: string, path: string, body?: unknown): Promise<T> {
    const separator = path.includes('?') ? '&' : '?';
    const response = await this.send(`${path}${separator}response_format=json`, {
      method,
      headers: {
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    if (!response.ok) {
      const parsed = (await response.json().catch(() => ({}))) as ErrorBody;
      throw new ApiError(
        parsed.error?.message ?? `The gateway answered HTTP ${response.status}.`,
        response.status,
        parsed.error?.code,
        parsed.error?.class,
      );
    }
    return (await response.json()) as T;
  }
}

async function errorMessage(response: Response): Promise<string> {
  const parsed = (await response.json().catch(() => ({}))) as ErrorBody;
  return parsed.error?.message ?? 'The key was refused.';
}
