// The console's only way to the gateway: the ordinary endpoints with `Authorization: Bearer <key>`
// and `?response_format=json`, same origin, no cookies, no referrer, no cache. The key travels in
// that header only. A refused key (401) signs the page out. One request keeps what the gateway sets:
// POST /agent/connections/start, whose HttpOnly consent cookie (no key in it) binds this browser to
// the upstream sign-in it starts (`keepCookie`).
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

  post<T>(path: string, body: unknown, options: { keepCookie?: boolean } = {}): Promise<T> {
    return this.rest<T>('POST', path, body, options.keepCookie === true);
  }

  delete<T>(path: string): Promise<T> {
    return this.rest<T>('DELETE', path);
  }

  /** A raw request to the gateway with the key (used by the MCP client for /mcp). With `keepCookie`
   * the browser stores a cookie the answer sets (same origin only); otherwise it ignores it. */
  async send(
    path: string,
    init: { method: string; headers: Record<string, string>; body?: string; keepCookie?: boolean },
  ) {
    const response = await fetch(path, {
      method: init.method,
      headers: { ...init.headers, authorization: `Bearer ${this.key}` },
      ...(init.body === undefined ? {} : { body: init.body }),
      cache: 'no-store',
      credentials: init.keepCookie === true ? 'same-origin' : 'omit',
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

  private async rest<T>(method: string, path: string, body?: unknown, keepCookie = false): Promise<T> {
    const separator = path.includes('?') ? '&' : '?';
    const response = await this.send(`${path}${separator}response_format=json`, {
      method,
      keepCookie,
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
