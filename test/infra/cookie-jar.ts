// A cookie jar for the tests' scripted browsers (the authorization server's login and consent forms,
// the gateway's consent cookie): cookies are kept per origin and sent back to that origin whatever
// their Path, which is all a test needs; a deleted or expired cookie is dropped.
export class CookieJar {
  private readonly byOrigin = new Map<string, Map<string, string>>();

  /** Keeps the cookies `response` (an answer from `url`) sets, and forgets the ones it deletes. */
  take(url: URL | string, response: Response): void {
    const origin = new URL(url).origin;
    const cookies = this.byOrigin.get(origin) ?? new Map<string, string>();
    this.byOrigin.set(origin, cookies);
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair?.indexOf('=') ?? -1;
      if (pair === undefined || at < 0) continue;
      const name = pair.slice(0, at).trim();
      const value = pair.slice(at + 1);
      if (/max-age=0/i.test(line) || /expires=Thu, 01[- ]Jan[- ]1970/i.test(line) || value === '')
        cookies.delete(name);
      else cookies.set(name, value);
    }
  }

  /** The `Cookie` header for a request to `url` ('' when the jar holds none for its origin). */
  header(url: URL | string): string {
    const cookies = this.byOrigin.get(new URL(url).origin) ?? new Map<string, string>();
    return [...cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  /** The value of cookie `name` for `url`'s origin, if the jar holds one. */
  get(url: URL | string, name: string): string | undefined {
    return this.byOrigin.get(new URL(url).origin)?.get(name);
  }
}
