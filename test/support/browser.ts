// Debian's chromium driven by playwright-core (which downloads no browser): test/infra/ensure-chromium.sh
// installs /usr/bin/chromium. `watchPage` records what a page did for the leak and CSP checks:
// console errors, page errors, every request (URL, headers, body) and every response body.
import { chromium, type Browser, type Page, type Request } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  // --no-sandbox: the tests run as root, where Chromium's sandbox cannot start.
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'], headless: true });
}

export interface SeenRequest {
  readonly url: string;
  readonly method: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | null;
}

export interface PageWatch {
  readonly consoleErrors: string[];
  readonly requests: SeenRequest[];
  readonly responses: { url: string; status: number; body: string }[];
  /** Waits until every response seen so far has had its body read. */
  settle(): Promise<void>;
}

export function watchPage(page: Page): PageWatch {
  const pending: Promise<void>[] = [];
  const watch: PageWatch = {
    consoleErrors: [],
    requests: [],
    responses: [],
    settle: async () => {
      await Promise.all(pending);
    },
  };
  page.on('console', (message) => {
    if (message.type() === 'error') watch.consoleErrors.push(`${message.text()} @ ${message.location().url}`);
  });
  page.on('pageerror', (error) => watch.consoleErrors.push(`page error: ${error.message}`));
  page.on('request', (request: Request) => {
    watch.requests.push({
      url: request.url(),
      method: request.method(),
      headers: request.headers(),
      body: request.postData(),
    });
  });
  page.on('response', (response) => {
    pending.push(
      response
        .text()
        .catch(() => '')
        .then((body) => {
          watch.responses.push({ url: response.url(), status: response.status(), body });
        }),
    );
  });
  return watch;
}

/** oidc-provider's dev interaction pages in the browser: its login form (as `login`, any password)
 * unless the browser already has a session there, then its consent form. The page must be on (or on
 * its way to) one of them; `onMissing` explains where it is instead. */
export async function passProviderForms(page: Page, login: string, onMissing?: () => Promise<string>) {
  const loginField = page.locator('input[name=login]');
  const consent = page.locator('input[name=prompt][value=consent]');
  await loginField
    .or(consent)
    .first()
    .waitFor({ state: 'attached', timeout: 15_000 })
    .catch(async () => {
      const why = onMissing === undefined ? '' : `: ${await onMissing()}`;
      throw new Error(`no login or consent form at ${page.url()}${why}`);
    });
  if ((await loginField.count()) > 0) {
    await loginField.fill(login);
    await page.locator('input[name=password]').fill('any');
    await page.locator('button[type=submit]').click();
    await consent.waitFor({ state: 'attached' });
  }
  await page.locator('button[type=submit]').click();
}
