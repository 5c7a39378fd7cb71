// The user's browser at a SaaS authorization server (issue 42), scripted: from the authorize URL the
// gateway hands out (POST /agent/connections/start), through oidc-provider's dev login and consent
// forms (test/infra/oidc-provider.ts walks them), up to the redirect back to the client — returned,
// not followed, so a test can deliver it, replay it or tamper with it.
import { CookieJar } from '../infra/cookie-jar.js';
import { walkInteraction } from '../infra/oidc-provider.js';

export { CookieJar } from '../infra/cookie-jar.js';

/** Signs in at the authorization server of `authorizeUrl` as `account`, consents, and returns the
 * redirect that leaves that server (the client's callback with `code`, `state` and `iss`, or with
 * `error`). `jar` holds the browser's cookies: the server's session stays in it, and the same jar
 * can carry the gateway's consent cookie to the callback. */
export async function headlessConsent(
  authorizeUrl: URL | string,
  account: string,
  jar: CookieJar = new CookieJar(),
): Promise<URL> {
  const server = new URL(authorizeUrl).origin;
  return walkInteraction(authorizeUrl, account, jar, (next) => next.origin !== server);
}
