// The workspace console's OAuth sign-in (docs/console.md "Signing in with OAuth") in a real browser:
// Debian's chromium against a real gateway with an `oauth` section and a workspace identity rule,
// and a real authorization server (oidc-provider, test/infra/oidc-provider.ts) whose dev login and
// consent forms are filled in the browser. The page registers itself by DCR, sends the browser
// there with PKCE, `state` and `resource`, and comes back signed in; the token lives in the tab's
// sessionStorage only and never in a URL, localStorage or a cookie. A tampered `state` is refused.
// /console signs in to the default workspace (payments); /w/team/console to workspace team's own
// resource (D24), whose MCP requests go to /w/team/mcp.
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '../infra/free-port.js';
import { headlessLogin, startAuthServer, type AuthServer } from '../infra/oidc-provider.js';
import { launchChromium, passProviderForms, watchPage, type PageWatch } from '../support/browser.js';
import { demoSource, keyRecord, newKey, startHarness, type Harness } from '../support/gateway-harness.js';
import { groupScopeRules } from '../support/oauth-clients.js';

let as: AuthServer;
let h: Harness;
let gatewayUrl: string;
let browser: Browser;
const otherKey = newKey();
const TOKEN_SLOT = 'agw-console:key';

beforeAll(async () => {
  const port = await freePort();
  gatewayUrl = `http://127.0.0.1:${port}`;
  as = await startAuthServer({
    resources: {
      [`${gatewayUrl}/mcp`]: { scope: 'mcp:read mcp:write' },
      [`${gatewayUrl}/w/team/mcp`]: { scope: 'mcp:read mcp:write' },
    },
    scopes: ['mcp:read', 'mcp:write'],
    registrationCors: true,
    tokenClaims: (account) => ({ groups: account === 'alice' ? ['payments-agents'] : ['staff'] }),
  });
  h = await startHarness({
    server: { host: '127.0.0.1', port, publicUrl: gatewayUrl, console: { enabled: true } },
    oauth: { scopesSupported: ['mcp:read', 'mcp:write'], defaultWorkspace: 'payments' },
    workspaces: [
      {
        name: 'payments',
        mcpSources: [demoSource('paydemo')],
        identity: { issuers: [{ issuer: as.issuer }], rules: groupScopeRules(as.issuer) },
      },
      {
        name: 'team',
        mcpSources: [demoSource('teamdemo')],
        identity: {
          issuers: [{ issuer: as.issuer }],
          rules: [{ name: 'staff', issuer: as.issuer, when: [{ claim: 'groups', contains: 'staff' }] }],
        },
      },
      {
        name: 'elsewhere',
        mcpSources: [demoSource('otherdemo')],
        keys: [keyRecord(otherKey, { access: 'write' })],
      },
    ],
  });
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await h?.stop();
  await as?.stop();
});

async function newSession(): Promise<{ context: BrowserContext; page: Page; watch: PageWatch }> {
  const context = await browser.newContext();
  const page = await context.newPage();
  return { context, page, watch: watchPage(page) };
}

/** From the console's sign-in view through the provider's login and consent forms. */
async function signInWithProvider(page: Page, login: string, base = '/console'): Promise<void> {
  await page.goto(`${gatewayUrl}${base}/`);
  await page.getByRole('button', { name: `Sign in with ${as.issuer}` }).click();
  // The provider's login form, then its consent form for the newly registered client.
  await passProviderForms(
    page,
    login,
    async () => `console status: ${(await page.locator('#sign-in-status').textContent()) ?? ''}`,
  );
}

const storage = (page: Page) =>
  page.evaluate<{ session: [string, string][]; local: number; cookie: string }>(
    '({ session: Object.entries(sessionStorage), local: localStorage.length, cookie: document.cookie })',
  );

describe('console OAuth sign-in', () => {
  it('console:oauth-csp — connect-src allows the trusted issuers’ origins and nothing else', async () => {
    const response = await fetch(`${gatewayUrl}/console/`);
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain(`connect-src 'self' ${new URL(as.issuer).origin};`);
    expect(csp).toContain("form-action 'none'");
    expect(csp).toContain("script-src 'self';");
    const callback = await fetch(`${gatewayUrl}/console/callback?code=x&state=y`);
    expect(callback.status).toBe(200);
    expect(callback.headers.get('content-security-policy')).toBe(csp);
  });

  it('console:oauth-sign-in — sign in at the provider, see that identity’s workspace, sign out; the token only in sessionStorage', async () => {
    const { context, page, watch } = await newSession();
    const tokensBefore = as.requests.get('/token') ?? 0;
    await signInWithProvider(page, 'alice');
    await page.locator('#who', { hasText: 'Workspace payments' }).waitFor({ timeout: 20_000 });
    await page.getByRole('heading', { name: 'Sources', level: 2 }).waitFor();
    await page.locator('#panel-sources').getByText('paydemo').first().waitFor();
    expect(as.requests.get('/token') ?? 0).toBe(tokensBefore + 1);
    expect(as.requests.get('/reg') ?? 0).toBeGreaterThan(0);
    // No code, state or token in the URL, after the callback's history entry was replaced.
    expect(page.url()).toBe(`${gatewayUrl}/console/`);
    const stored = await storage(page);
    const token = stored.session.find(([name]) => name === TOKEN_SLOT)?.[1];
    expect(token).toMatch(/^ey/);
    expect(stored.local).toBe(0);
    expect(stored.cookie).toBe('');
    // The provider's own session cookies share the loopback host (cookies ignore the port); none
    // carries the token, and the console wrote none.
    for (const cookie of await context.cookies(gatewayUrl)) {
      expect(cookie.value).not.toContain(token);
      expect(cookie.name).not.toMatch(/^agw/);
    }
    await page
      .getByRole('navigation', { name: 'Console views' })
      .getByRole('button', { name: 'Tools' })
      .click();
    await page.locator('#panel-tools').getByText('paydemo__', { exact: false }).first().waitFor();
    const text = await page.evaluate<string>('document.body.innerText');
    expect(text).not.toContain('otherdemo');
    await watch.settle();
    // The token travelled only in the Authorization header to the gateway, never in a URL.
    for (const request of watch.requests) {
      expect(request.url).not.toContain(token);
      if (request.url.startsWith(gatewayUrl) && new URL(request.url).pathname !== '/console/callback')
        expect(request.url).not.toMatch(/[?&]code=/);
    }
    expect(
      watch.requests.some(
        (r) => r.url.startsWith(`${gatewayUrl}/agent/`) && r.headers['authorization'] === `Bearer ${token}`,
      ),
    ).toBe(true);
    expect(watch.consoleErrors.filter((e) => e.includes(gatewayUrl))).toEqual([]);
    await page.locator('#sign-out').click();
    await page.getByRole('heading', { name: 'Sign in', level: 2 }).waitFor();
    const after = await storage(page);
    expect(after.session.find(([name]) => name === TOKEN_SLOT)).toBeUndefined();
    await context.close();
  }, 60_000);

  it('console:oauth-state-checked — a callback whose state was tampered with is refused and no code is exchanged', async () => {
    const { context, page, watch } = await newSession();
    await page.goto(`${gatewayUrl}/console/`);
    const sent = page.waitForRequest((request) => request.url().startsWith(`${as.issuer}/auth?`));
    await page.getByRole('button', { name: `Sign in with ${as.issuer}` }).click();
    const authorization = new URL((await sent).url());
    await page.locator('input[name=login]').waitFor();
    expect(authorization.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorization.searchParams.get('resource')).toBe(`${gatewayUrl}/mcp`);
    // A real code for this very request (same client, PKCE challenge and state), then the state
    // changed on the way back.
    const callback = await headlessLogin(authorization, 'alice', `${gatewayUrl}/console/callback`);
    expect(callback.searchParams.get('code')).toBeTruthy();
    expect(callback.searchParams.get('state')).toBe(authorization.searchParams.get('state'));
    callback.searchParams.set('state', 'tampered-state-value');
    const tokensBefore = as.requests.get('/token') ?? 0;
    await page.goto(callback.href);
    await page
      .locator('#sign-in-status', {
        hasText: 'Sign-in failed: The sign-in answer did not match this tab (state).',
      })
      .waitFor({ timeout: 20_000 })
      .catch(async () => {
        throw new Error(
          `at ${page.url()}: ${(await page.locator('#sign-in-status').textContent()) ?? ''} ${JSON.stringify(watch.consoleErrors)}`,
        );
      });
    expect(as.requests.get('/token') ?? 0).toBe(tokensBefore);
    expect(page.url()).toBe(`${gatewayUrl}/console/`);
    const stored = await storage(page);
    expect(stored.session.find(([name]) => name === TOKEN_SLOT)).toBeUndefined();
    expect(stored.session.find(([name]) => name === 'agw-console:oauth-pending')).toBeUndefined();
    await context.close();
  }, 60_000);

  it("console:oauth-workspace-console — /w/team/console signs in to team's own resource and talks to /w/team/mcp", async () => {
    const { context, page, watch } = await newSession();
    const sent = page.waitForRequest((request) => request.url().startsWith(`${as.issuer}/auth?`));
    await signInWithProvider(page, 'bob', '/w/team/console');
    const authorization = new URL((await sent).url());
    expect(authorization.searchParams.get('resource')).toBe(`${gatewayUrl}/w/team/mcp`);
    expect(authorization.searchParams.get('redirect_uri')).toBe(`${gatewayUrl}/w/team/console/callback`);
    await page.locator('#who', { hasText: 'Workspace team' }).waitFor({ timeout: 20_000 });
    expect(page.url()).toBe(`${gatewayUrl}/w/team/console/`);
    await page
      .getByRole('navigation', { name: 'Console views' })
      .getByRole('button', { name: 'Call a tool' })
      .click();
    // The options come from a tools/list the view sends to the MCP endpoint when it opens.
    await page
      .getByLabel('Tool', { exact: true })
      .locator('option', { hasText: 'teamdemo__echo' })
      .waitFor({ state: 'attached', timeout: 20_000 });
    await watch.settle();
    const token = (await storage(page)).session.find(([name]) => name === TOKEN_SLOT)?.[1];
    expect(token).toMatch(/^ey/);
    // Every request to an MCP endpoint (not the page's own mcp.js module) went to team's.
    const mcp = watch.requests.filter(
      (r) => r.url.startsWith(gatewayUrl) && new URL(r.url).pathname.endsWith('/mcp'),
    );
    expect(mcp.length).toBeGreaterThan(0);
    for (const request of mcp) expect(new URL(request.url).pathname).toBe('/w/team/mcp');
    expect(watch.consoleErrors.filter((e) => e.includes(gatewayUrl))).toEqual([]);
    await context.close();
  }, 60_000);
});
