// A user connecting their account at a `user` source through the gateway (issue 42), as a browser
// would: start the flow with the caller's key or token (the ticket of an elicitation link, or the
// source's name), keep the binding cookie, sign in and consent at the authorization server
// (headlessConsent), and open the gateway's callback with the cookie. Each step is separate so tests
// can replay, tamper with or skip one.
import { CookieJar, headlessConsent } from './headless-consent.js';

export interface StartedConsent {
  readonly status: number;
  readonly body: Record<string, unknown>;
  /** The `agw_consent=<value>` pair the gateway set (what the browser sends back), if any. */
  readonly cookie: string | undefined;
}

/** The ticket of an elicitation link (`<publicUrl>/connect?ticket=<ticket>`). */
export function ticketOf(url: string): string {
  return new URL(url).searchParams.get('ticket') ?? '';
}

export async function startConsent(
  gatewayUrl: string,
  credential: string,
  by: { ticket: string } | { source: string },
): Promise<StartedConsent> {
  const response = await fetch(`${gatewayUrl}/agent/connections/start`, {
    method: 'POST',
    headers: { authorization: `Bearer ${credential}`, 'content-type': 'application/json' },
    body: JSON.stringify(by),
  });
  const cookie = response.headers.get('set-cookie')?.split(';')[0];
  return { status: response.status, body: (await response.json()) as Record<string, unknown>, cookie };
}

/** Signs `account` in at the authorization server and approves: the callback URL, not yet opened. */
export function approveAt(started: StartedConsent, account: string): Promise<URL> {
  const url = started.body['authorize_url'];
  if (typeof url !== 'string') throw new Error(`no authorize_url: ${JSON.stringify(started.body)}`);
  return headlessConsent(new URL(url), account, new CookieJar());
}

/** Opens the gateway's callback as the browser would (with its cookie, when given). */
export async function openCallback(
  callback: URL,
  cookie: string | undefined,
): Promise<{ status: number; text: string }> {
  const response = await fetch(callback, {
    redirect: 'manual',
    headers: cookie === undefined ? {} : { cookie },
  });
  return { status: response.status, text: await response.text() };
}

/** The whole consent, expected to succeed: start, approve as `account`, open the callback. */
export async function connectAccount(
  gatewayUrl: string,
  credential: string,
  by: { ticket: string } | { source: string },
  account: string,
): Promise<{ status: number; text: string }> {
  const started = await startConsent(gatewayUrl, credential, by);
  if (started.status !== 200)
    throw new Error(`start answered ${started.status}: ${JSON.stringify(started.body)}`);
  return openCallback(await approveAt(started, account), started.cookie);
}
