// The console's Connections view and the elicitation link (issue 42, docs/console.md "Connections")
// in a real browser: Debian's chromium against the gateway from its composition root with the console
// on and a `user` source, oidc-provider as the SaaS authorization server whose dev login and consent
// forms are filled in the browser, and the audience-bound MCP upstream
// (test/support/user-oauth-world.ts). Each key is a different user. The page starts the upstream
// sign-in with the key (its answer's binding cookie kept by the browser), follows the authorization
// URL, and the gateway's callback says "Connected"; a link made for another user, or an expired one,
// is refused with the gateway's words and followed nowhere.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../infra/free-port.js';
import { launchChromium, passProviderForms, watchPage, type PageWatch } from '../support/browser.js';
import { newKeys, startHarness, type Harness } from '../support/gateway-harness.js';
import { ticketOf } from '../support/user-consent.js';
import {
  CONNECTION_KEY,
  connectLinkOf,
  rawToolCall,
  startUserOAuthWorld,
  userOAuthDocument,
  type UserOAuthWorld,
} from '../support/user-oauth-world.js';

const [alice, bob] = newKeys(2);
let world: UserOAuthWorld;
let h: Harness;
let gatewayUrl: string;
let browser: Browser;

beforeAll(async () => {
  world = await startUserOAuthWorld({ signIn: true });
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  world.resources[`${gatewayUrl}/w/team/mcp`] = { scope: 'mcp:read', ttlSeconds: 3600 };
  const document = userOAuthDocument(world, port, [alice, bob], {
    server: { console: { enabled: true } },
    signIn: true,
  });
  h = await startHarness(document, { AGW_CONNECTION_KEY: CONNECTION_KEY });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await h?.stop();
  await world?.stop();
});

async function newSession(): Promise<{ context: BrowserContext; page: Page; watch: PageWatch }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  return { context, page, watch: watchPage(page) };
}

/** Signs in on the page's sign-in form (the page must show it). */
async function signInWithKey(page: Page, key: string): Promise<void> {
  await page.locator('#api-key').fill(key);
  await page.getByRole('button', { name: 'Sign in', exact: true }).click();
  await page.locator('#who', { hasText: 'Workspace team' }).waitFor({ timeout: 20_000 });
}

async function openConnections(page: Page): Promise<void> {
  await page
    .getByRole('navigation', { name: 'Console views' })
    .getByRole('button', { name: 'Connections' })
    .click();
  await page.locator('#panel-connections table').waitFor();
}

/** The text of the Connections view's row for the `saas` source. */
function saasRow(page: Page) {
  return page.locator('#panel-connections tbody tr', { hasText: 'saas' });
}

/** At the provider: login and consent as `login`, then the gateway's callback page. */
async function consentAs(page: Page, login: string): Promise<void> {
  await passProviderForms(
    page,
    login,
    async () => `connections panel: ${(await page.locator('#panel-connections').textContent()) ?? ''}`,
  );
  await page.getByRole('heading', { name: 'Connected', level: 1 }).waitFor({ timeout: 20_000 });
  expect(new URL(page.url()).pathname).toBe('/oauth/upstream/callback');
  expect(await page.locator('body').textContent()).toContain('Your saas account is connected');
}

async function connections(key: string): Promise<Record<string, unknown>[]> {
  const response = await fetch(`${gatewayUrl}/agent/connections?response_format=json`, {
    headers: { authorization: `Bearer ${key}` },
  });
  return ((await response.json()) as { connections: Record<string, unknown>[] }).connections;
}

async function whoami(key: string): Promise<string> {
  return JSON.stringify((await rawToolCall(gatewayUrl, key, 'saas__whoami')).result);
}

/** The key went nowhere but the Authorization header of the gateway's own origin; no console error
 * but Chromium's note of the one refusal a test expects (`refused`: its status). */
async function keyStayedInHeaders(
  context: BrowserContext,
  watch: PageWatch,
  key: string,
  refused?: number,
): Promise<void> {
  await watch.settle();
  for (const request of watch.requests) {
    expect(request.url).not.toContain(key);
    expect(request.body ?? '').not.toContain(key);
    if (request.headers['authorization'] !== undefined) expect(request.url.startsWith(gatewayUrl)).toBe(true);
  }
  for (const cookie of await context.cookies()) expect(cookie.value).not.toContain(key);
  // The page never sees a token of the upstream: no JWT in anything the gateway answered it.
  for (const response of watch.responses.filter((r) => r.url.startsWith(`${gatewayUrl}/agent/`)))
    expect(response.body).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
  const expected = `the server responded with a status of ${refused} `;
  const start = `@ ${gatewayUrl}/agent/connections/start?`;
  expect(
    watch.consoleErrors.filter(
      (e) => e.includes(gatewayUrl) && !(refused !== undefined && e.includes(expected) && e.includes(start)),
    ),
  ).toEqual([]);
}

describe('console connections', () => {
  it('console:connections-connect-revoke — Connect from the view, consent at the provider, see it connected, revoke it', async () => {
    const { context, page, watch } = await newSession();
    await page.goto(`${gatewayUrl}/console/`);
    await signInWithKey(page, alice.key);
    await openConnections(page);
    await saasRow(page).getByText('Not connected').waitFor();
    const authorize = page.waitForRequest((request) => request.url().startsWith(`${world.as.issuer}/auth?`));
    await saasRow(page).getByRole('button', { name: 'Connect saas' }).click();
    const sent = new URL((await authorize).url());
    expect(sent.searchParams.get('resource')).toBe(world.upstream.url);
    expect(sent.searchParams.get('code_challenge_method')).toBe('S256');
    // The start's answer set the binding cookie (HttpOnly, for the callback path only).
    const binding = (await context.cookies(gatewayUrl + '/oauth/upstream/callback')).find(
      (cookie) => cookie.name === 'agw_consent',
    );
    expect(binding).toMatchObject({ httpOnly: true, path: '/oauth/upstream', sameSite: 'Lax' });
    await consentAs(page, 'alice');
    expect(await whoami(alice.key)).toContain('alice');

    // Back in the console (the key is still in this tab): connected, with the server that granted it.
    await page.goto(`${gatewayUrl}/console/`);
    await page.locator('#who', { hasText: 'Workspace team' }).waitFor({ timeout: 20_000 });
    await openConnections(page);
    const row = saasRow(page);
    await row.getByText('Connected', { exact: true }).waitFor();
    expect(await row.textContent()).toContain(world.as.issuer);
    expect(await row.textContent()).toContain('tools:read');
    expect(await row.textContent()).toMatch(/\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC/);

    await row.getByRole('button', { name: 'Revoke saas' }).click();
    await saasRow(page).getByText('Not connected').waitFor();
    await saasRow(page).getByRole('button', { name: 'Connect saas' }).waitFor();
    expect(await connections(alice.key)).toEqual([{ source: 'saas', connected: false }]);
    expect((await rawToolCall(gatewayUrl, alice.key, 'saas__whoami')).result?.['resultType']).toBe(
      'input_required',
    );
    expect(
      watch.requests.some(
        (r) => r.method === 'DELETE' && new URL(r.url).pathname === '/agent/connections/saas',
      ),
    ).toBe(true);
    await keyStayedInHeaders(context, watch, alice.key);
    await context.close();
  }, 90_000);

  it('console:connections-link-signed-in — a link opened in a tab signed in with its key ends on "Connected"', async () => {
    const link = connectLinkOf(await rawToolCall(gatewayUrl, bob.key, 'saas__whoami'));
    expect(link.startsWith(`${gatewayUrl}/connect?ticket=`)).toBe(true);
    const { context, page, watch } = await newSession();
    await page.goto(`${gatewayUrl}/console/`);
    await signInWithKey(page, bob.key);
    await page.goto(link);
    await consentAs(page, 'bob');
    const started = watch.requests.find((r) => new URL(r.url).pathname === '/agent/connections/start');
    expect(JSON.parse(started?.body ?? '{}')).toEqual({ ticket: ticketOf(link) });
    // The link went through the console: /connect redirected there.
    expect(watch.responses.some((r) => r.url === link && r.status === 302)).toBe(true);
    expect(await whoami(bob.key)).toContain('bob');
    await keyStayedInHeaders(context, watch, bob.key);
    await context.close();
  }, 90_000);

  it('console:connections-link-then-sign-in — a link opened signed out asks for the key first, then connects', async () => {
    const link = connectLinkOf(await rawToolCall(gatewayUrl, alice.key, 'saas__whoami'));
    const { context, page, watch } = await newSession();
    await page.goto(link);
    await page
      .locator('#sign-in-status', { hasText: 'Sign in to connect your account' })
      .waitFor({ timeout: 20_000 });
    // Workspace team signs in with OAuth too, so the link opened its own console; the ticket is out
    // of the address bar once the page has it.
    expect(page.url()).toBe(`${gatewayUrl}/w/team/console/`);
    await page.locator('#api-key').fill(alice.key);
    await page.getByRole('button', { name: 'Sign in', exact: true }).click();
    await consentAs(page, 'alice');
    expect(await whoami(alice.key)).toContain('alice');
    await keyStayedInHeaders(context, watch, alice.key);
    await context.close();
  }, 90_000);

  it("console:connections-link-other-user — another user's link shows the gateway's 403 message and goes nowhere", async () => {
    await fetch(`${gatewayUrl}/agent/connections/saas`, {
      method: 'DELETE',
      headers: { authorization: `Bearer ${alice.key}` },
    });
    const link = connectLinkOf(await rawToolCall(gatewayUrl, alice.key, 'saas__whoami'));
    const { context, page, watch } = await newSession();
    await page.goto(`${gatewayUrl}/console/`);
    await signInWithKey(page, bob.key);
    await page.goto(link);
    const alert = page.locator('#panel-connections [role=alert]');
    await alert.waitFor({ timeout: 20_000 });
    expect(await alert.textContent()).toBe(
      'Connecting from the link failed: This link was made for another user: sign in as the user who called the tool. (forbidden, proxy_authorization)',
    );
    await page.waitForTimeout(300);
    expect(page.url()).toBe(`${gatewayUrl}/w/team/console/`);
    expect(watch.requests.some((r) => r.url.startsWith(world.as.issuer))).toBe(false);
    // Nothing changed for either user; the Connections view still lists bob's own state.
    expect(await connections(alice.key)).toEqual([{ source: 'saas', connected: false }]);
    expect(await saasRow(page).textContent()).toContain('Connected');
    await keyStayedInHeaders(context, watch, bob.key, 403);
    await context.close();
  }, 60_000);

  it("console:connections-link-expired — an altered or expired ticket shows the gateway's 400 message and goes nowhere", async () => {
    const link = connectLinkOf(await rawToolCall(gatewayUrl, alice.key, 'saas__whoami'));
    const ticket = ticketOf(link);
    const altered = `${ticket.slice(0, -4)}AAAA`;
    const { context, page, watch } = await newSession();
    await page.goto(`${gatewayUrl}/console/`);
    await signInWithKey(page, alice.key);
    await page.goto(`${gatewayUrl}/console/#connect=${encodeURIComponent(altered)}`);
    const alert = page.locator('#panel-connections [role=alert]');
    await alert.waitFor({ timeout: 20_000 });
    expect(await alert.textContent()).toBe(
      'Connecting from the link failed: This link has expired or is not valid: call the tool again for a new one. (invalid_request, request)',
    );
    await page.waitForTimeout(300);
    expect(page.url()).toBe(`${gatewayUrl}/console/`);
    expect(watch.requests.some((r) => r.url.startsWith(world.as.issuer))).toBe(false);
    expect(await connections(alice.key)).toEqual([{ source: 'saas', connected: false }]);
    await keyStayedInHeaders(context, watch, alice.key, 400);
    await context.close();
  }, 60_000);

  it('console:connections-oauth-link — signed out, a link survives the OAuth sign-in round trip and connects that person', async () => {
    // carol signs in with OAuth once to get her token (what her MCP client would hold).
    const first = await newSession();
    await first.page.goto(`${gatewayUrl}/w/team/console/`);
    await first.page.getByRole('button', { name: `Sign in with ${world.as.issuer}` }).click();
    await passProviderForms(first.page, 'carol');
    await first.page.locator('#who', { hasText: 'Workspace team' }).waitFor({ timeout: 20_000 });
    const token = await first.page.evaluate<string | null>("sessionStorage.getItem('agw-console:key')");
    expect(token).toMatch(/^ey/);
    await first.context.close();
    const workspaceMcp = `${gatewayUrl}/w/team`;
    const link = connectLinkOf(await rawToolCall(workspaceMcp, token ?? '', 'saas__whoami'));

    // A fresh browser opens the link: sign-in view, OAuth round trip, then straight to the consent.
    const { context, page, watch } = await newSession();
    await page.goto(link);
    await page
      .locator('#sign-in-status', { hasText: 'Sign in to connect your account' })
      .waitFor({ timeout: 20_000 });
    const upstreamAuthorize = page.waitForRequest(
      (request) =>
        request.url().startsWith(`${world.as.issuer}/auth?`) &&
        new URL(request.url()).searchParams.get('resource') === world.upstream.url,
    );
    await page.getByRole('button', { name: `Sign in with ${world.as.issuer}` }).click();
    await passProviderForms(page, 'carol');
    await upstreamAuthorize;
    const started = watch.requests.find((r) => new URL(r.url).pathname === '/agent/connections/start');
    expect(JSON.parse(started?.body ?? '{}')).toEqual({ ticket: ticketOf(link) });
    // The provider remembers carol now: only the consent for the gateway's client.
    await consentAs(page, 'carol');
    expect(JSON.stringify((await rawToolCall(workspaceMcp, token ?? '', 'saas__whoami')).result)).toContain(
      'carol',
    );
    // The callback URL of the console sign-in kept no code; the ticket never reached a request URL
    // but /connect's own.
    for (const request of watch.requests.filter((r) => r.url.startsWith(gatewayUrl)))
      if (!request.url.startsWith(`${gatewayUrl}/connect?`))
        expect(request.url).not.toContain(ticketOf(link));
    expect(watch.consoleErrors.filter((e) => e.includes(gatewayUrl))).toEqual([]);
    await context.close();
  }, 90_000);
});
