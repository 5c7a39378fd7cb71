// The workspace console in a real browser (issue 25): Debian's chromium driven by playwright-core
// against a real `agent-gateway serve` process whose workspaces have the real demo MCP server (stdio)
// and a files data source. Workspace A (ws-alpha) and workspace B (ws-bravo-x7) carry distinct
// markers; A's session must never show or receive B's. The key must live in the tab's
// sessionStorage only and travel only in the Authorization header. Any console error (a CSP
// violation among them) fails the test. Screenshots of the main views go to docs/images/ when
// AGW_UPDATE_SCREENSHOTS=1, else to a temp dir.
import { mkdir, mkdtemp, rename, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { stringify } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { demoSource, httpSource, keyRecord, newKey, newKeys } from '../support/gateway-document.js';
import { get, startHarness } from '../support/gateway-harness.js';
import { startGatewayProcesses, type GatewayProcess } from '../support/gateway-processes.js';
import { launchChromium, watchPage, type PageWatch } from '../support/browser.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { everythingStdioParams } from '../fixtures/upstreams/everything-server.js';
import { writeTree } from '../support/file-tree.js';

const [alphaWrite, alphaRead, bravoWrite] = newKeys(3);
/** Everything that names workspace B; none of it may reach A's session. */
const BRAVO_MARKERS = ['ws-bravo-x7', 'bravox7', bravoWrite.id];
const UPDATE = process.env['AGW_UPDATE_SCREENSHOTS'] === '1';

let dir: string;
let shots: string;
let configPath: string;
let gateway: GatewayProcess;
let browser: Browser;
/** A 2026-07-28 upstream whose `regional_lookup` mirrors its argument into Mcp-Param-Region. */
let modern: RunningModernServer;

function config(alphaAccess: 'read' | 'write') {
  return {
    version: 1,
    server: { host: '127.0.0.1', port: 0, console: { enabled: true } },
    workspaces: [
      {
        name: 'ws-alpha',
        mcpSources: [
          demoSource('demo', { description: 'Demo tools from the bundled example MCP server' }),
          httpSource('regional', modern.url, {
            tools: { include: ['regional_lookup'] },
            // Served, and shown as awaiting approval (issue 41).
            pinning: { mode: 'warn' },
          }),
          {
            name: 'everything',
            transport: 'stdio',
            ...everythingStdioParams(),
            tools: { include: ['get-annotated-message'] },
          },
        ],
        dataSources: [
          { name: 'handbook', type: 'files', path: join(dir, 'alpha'), description: 'Team handbook' },
        ],
        keys: [
          keyRecord(alphaWrite, {
            name: 'alpha-console',
            access: alphaAccess,
            limits: { requestsPerMinute: 600, toolCallsPerDay: 1000, searchesPerDay: 500 },
          }),
          keyRecord(alphaRead, { name: 'alpha-reader', access: 'read' }),
        ],
      },
      {
        name: 'ws-bravo-x7',
        mcpSources: [demoSource('bravox7tools')],
        dataSources: [{ name: 'bravox7docs', type: 'files', path: join(dir, 'bravo') }],
        keys: [keyRecord(bravoWrite, { access: 'write' })],
      },
    ],
  };
}

async function writeConfig(document: unknown): Promise<void> {
  const temp = `${configPath}.tmp`;
  await writeFile(temp, stringify(document));
  await rename(temp, configPath);
}

async function until<T>(what: string, probe: () => Promise<T | undefined>, ms = 20_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function synced(key: string, source: string): Promise<true | undefined> {
  const body = (await (await get(`${gateway.url}/agent/sources?response_format=json`, key)).json()) as {
    sources: { id: string; status: string; documents: number | null }[];
  };
  const record = body.sources.find((s) => s.id === source);
  return record?.status === 'ready' && (record.documents ?? 0) > 0 ? true : undefined;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'agw-console-'));
  shots = UPDATE ? join(process.cwd(), 'docs/images') : join(dir, 'shots');
  await mkdir(shots, { recursive: true });
  await writeTree(dir, {
    'alpha/on-call.md':
      '# On-call rotation\n\nThe on-call rotation changes every Monday at 09:00 UTC. The person on call answers pages within fifteen minutes.\n\nBackups run nightly at 02:00 UTC and are kept for thirty days.\n',
    'alpha/releases.md':
      '# Releases\n\nReleases ship on Thursdays after the rotation hand-over. A release needs two approvals.\n',
    'bravo/ledger.md':
      '# bravox7 ledger\n\nThe BRAVOX7 rotation is secret: the bravox7 vault opens on Mondays.\n',
  });
  modern = await startModernServer();
  configPath = join(dir, 'gateway.yaml');
  await writeConfig(config('write'));
  [gateway] = (await startGatewayProcesses(configPath, 1)) as [GatewayProcess];
  await until('workspace A synced', () => synced(alphaWrite.key, 'handbook'));
  await until('workspace B synced', () => synced(bravoWrite.key, 'bravox7docs'));
  browser = await launchChromium();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  await gateway?.child.stop();
  await modern?.close();
  await rm(dir, { recursive: true, force: true });
});

async function newSession(): Promise<{ context: BrowserContext; page: Page; watch: PageWatch }> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 860 } });
  await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: gateway.url });
  const page = await context.newPage();
  return { context, page, watch: watchPage(page) };
}

async function signIn(page: Page, key: string): Promise<void> {
  await page.goto(`${gateway.url}/console`);
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Sources', level: 2 }).waitFor();
}

async function openView(page: Page, label: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console views' }).getByRole('button', { name: label }).click();
}

async function shoot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: join(shots, `console-${name}.png`), fullPage: true });
}

interface TabStorage {
  session: [string, string][];
  local: number;
  cookie: string;
}

const storage = (page: Page) =>
  page.evaluate<TabStorage>(
    '({ session: Object.entries(sessionStorage), local: localStorage.length, cookie: document.cookie })',
  );

const pageText = (page: Page) => page.evaluate<string>('document.body.innerText');

function expectNoBravo(text: string, where: string): void {
  for (const marker of BRAVO_MARKERS)
    expect(text.toLowerCase().includes(marker.toLowerCase()), `${where} contains ${marker}`).toBe(false);
}

function expectKeyOnlyInAuthorization(watch: PageWatch, key: string): void {
  let carried = 0;
  for (const request of watch.requests) {
    expect(request.url.includes(key), `key in URL ${request.url}`).toBe(false);
    expect(request.body?.includes(key) ?? false, `key in the body of ${request.url}`).toBe(false);
    for (const [name, value] of Object.entries(request.headers)) {
      if (name === 'authorization') {
        if (value === `Bearer ${key}`) carried += 1;
        continue;
      }
      expect(value.includes(key), `key in header ${name} of ${request.url}`).toBe(false);
    }
    if (!new URL(request.url).pathname.startsWith('/console'))
      expect(request.headers['authorization'], `no key on ${request.url}`).toBe(`Bearer ${key}`);
    else expect(request.headers['authorization'], `a key on the static ${request.url}`).toBeUndefined();
  }
  expect(carried).toBeGreaterThan(0);
}

describe('console', () => {
  it('console:browser-flow — signs in, shows sources, searches, answers, calls a tool, shows a refusal for a read key and signs out; no console error or CSP violation', async () => {
    const { context, page, watch } = await newSession();
    await page.goto(`${gateway.url}/console`);
    await shoot(page, 'sign-in');
    await signIn(page, alphaWrite.key);

    // Sources: the demo MCP source with its tools and breaker, the files source with its documents.
    const sources = page.locator('#panel-sources table');
    await sources.getByRole('cell', { name: 'handbook', exact: true }).waitFor();
    const handbook = sources.getByRole('row').filter({ hasText: 'handbook' });
    await expect.poll(() => handbook.textContent()).toMatch(/ready/);
    // Source, type, state, breaker, last sync, documents, chunks, skipped tools, pinned
    // definitions, progress.
    const cells = await handbook.getByRole('cell').allTextContents();
    expect([cells[1], cells[2], cells[5]]).toEqual(['files', 'ready', '2']);
    expect(Number(cells[6])).toBeGreaterThanOrEqual(2);
    const demo = await sources
      .getByRole('row')
      .filter({ hasText: 'demo' })
      .getByRole('cell')
      .allTextContents();
    expect([demo[1], demo[2], demo[3], demo[5], demo[7]]).toEqual([
      'mcp',
      'ready',
      'closed',
      '6 tools',
      'none',
    ]);
    expect(demo[8]).toBe('off');
    const regional = await sources
      .getByRole('row')
      .filter({ hasText: 'regional' })
      .getByRole('cell')
      .allTextContents();
    expect(regional[8]).toMatch(/^warn: 1 unapproved: regional_lookup \(new; approve sha256:[0-9a-f]{64}\)$/);
    await shoot(page, 'sources');

    // Tools with their permissions.
    await openView(page, 'Tools');
    const tools = page.locator('#panel-tools table');
    await tools.getByRole('cell', { name: 'demo__create_note', exact: true }).waitFor();
    expect(await tools.getByRole('row').filter({ hasText: 'demo__create_note' }).textContent()).toMatch(
      /write/,
    );
    await shoot(page, 'tools');

    // Search and query playground.
    await openView(page, 'Search and query');
    await page.getByLabel('Question or search words').fill('When does the on-call rotation change?');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    const results = page.locator('#panel-playground .results');
    await results.getByRole('heading', { name: 'On-call rotation' }).waitFor();
    expect(await results.textContent()).toContain('every Monday at 09:00 UTC');
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByRole('heading', { name: 'Citations' }).waitFor();
    expect(await page.locator('#panel-playground .answer').textContent()).toMatch(
      /Monday at 09:00 UTC.*\[1\]/,
    );
    expect(await page.locator('#panel-playground .citations').textContent()).toContain('handbook');
    await shoot(page, 'playground');

    // A tool call from the generated form (two number fields), opened from the tools view.
    await openView(page, 'Tools');
    await page.getByRole('button', { name: 'Call demo__add' }).click();
    await page.getByLabel('a (required) — number').fill('2');
    await page.getByLabel('b (required) — number').fill('40');
    await page.getByRole('button', { name: 'Call demo__add' }).click();
    await expect.poll(() => page.locator('#panel-call pre.content').textContent()).toBe('42');
    await shoot(page, 'call');

    // An enum as a list and a boolean as a check box (the published reference server's tool), and a
    // string the gateway wants mirrored in Mcp-Param-Region, Base64-encoded when it is not ASCII.
    await page.getByLabel('Tool', { exact: true }).selectOption('everything__get-annotated-message');
    await page.getByLabel('messageType (required) — enum').selectOption('debug');
    expect(await page.getByLabel('includeImage — boolean').isChecked()).toBe(false);
    await page.getByRole('button', { name: 'Call everything__get-annotated-message' }).click();
    await expect.poll(() => page.locator('#panel-call pre.content').first().textContent()).toMatch(/debug/i);
    await page.getByLabel('Tool', { exact: true }).selectOption('regional__regional_lookup');
    await page.getByLabel('region (required) — string').fill('Zürich');
    await page.getByRole('button', { name: 'Call regional__regional_lookup' }).click();
    await expect.poll(() => page.locator('#panel-call pre.content').textContent()).toBe('region=Zürich');

    // Client configs with a working copy button; the key is never in them.
    await openView(page, 'Client configs');
    await page.getByRole('heading', { name: 'Cursor', level: 3 }).waitFor();
    await page.getByRole('button', { name: 'Copy the Cursor config' }).click();
    const copied = await page.evaluate<string>('navigator.clipboard.readText()');
    expect(JSON.parse(copied)).toMatchObject({
      mcpServers: { 'agent-gateway-ws-alpha': { url: `${gateway.url}/mcp` } },
    });
    await shoot(page, 'clients');

    // Limits and usage, and the activity charts.
    await openView(page, 'Limits and usage');
    await page.getByRole('heading', { name: 'Limits', level: 3 }).waitFor();
    expect(await page.locator('#panel-usage dl').textContent()).toMatch(/alpha-console.*write/s);
    await shoot(page, 'usage');
    await openView(page, 'Activity');
    await page.locator('#panel-activity svg.chart').first().waitFor();
    expect(
      await page.locator('#panel-activity svg.chart polyline, #panel-activity svg.chart circle').count(),
    ).toBeGreaterThan(0);
    expect(await page.locator('#panel-activity').textContent()).toContain('/agent/search');
    await shoot(page, 'activity');

    // A write tool offered to this (write) key; the key loses write access before the call is made:
    // the gateway refuses it, and the page shows the refusal as worded by the gateway.
    await openView(page, 'Call a tool');
    await page.getByLabel('Tool', { exact: true }).selectOption('demo__create_note');
    await page.getByLabel('title (required) — string').fill('Release notes');
    await page.getByLabel('body (required) — string').fill('Ship on Thursday');
    await writeConfig(config('read'));
    await until('the key to lose write access', async () => {
      const body = (await (
        await get(`${gateway.url}/agent/tools?response_format=json`, alphaWrite.key)
      ).json()) as {
        tools: { name: string; callable: boolean }[];
      };
      return body.tools.find((t) => t.name === 'demo__create_note')?.callable === false ? true : undefined;
    });
    await page.getByRole('button', { name: 'Call demo__create_note' }).click();
    const refusal = page.locator('#panel-call [role=alert]');
    await refusal.waitFor();
    expect(await refusal.textContent()).toMatch(
      /Refused by the gateway: Permission denied: demo__create_note needs an API key with write access; this key has read access\. \(forbidden, proxy_authorization\)/,
    );
    await shoot(page, 'refusal');

    // Sign out: the key is gone from the tab, the panels are empty, the sign-in form is back.
    const before = await storage(page);
    expect(before.session).toEqual([['agw-console:key', alphaWrite.key]]);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    const after = await storage(page);
    expect(after.session).toEqual([]);
    expect(await page.locator('#panels').textContent()).not.toContain('demo__');
    expect(await page.getByLabel('API key').inputValue()).toBe('');

    // A read key is never offered a write tool.
    await signIn(page, alphaRead.key);
    await openView(page, 'Tools');
    await page.getByRole('cell', { name: 'demo__create_note', exact: true }).waitFor();
    expect(
      await page
        .locator('#panel-tools')
        .getByRole('row')
        .filter({ hasText: 'demo__create_note' })
        .textContent(),
    ).toContain('needs a write key');
    await openView(page, 'Call a tool');
    // The options come from a tools/list the view sends when it opens: wait for them.
    await page
      .getByLabel('Tool', { exact: true })
      .locator('option', { hasText: 'demo__echo' })
      .waitFor({ state: 'attached' });
    const offered = await page.getByLabel('Tool', { exact: true }).locator('option').allTextContents();
    expect(offered).toContain('demo__echo');
    expect(offered).not.toContain('demo__create_note');
    expect(offered).not.toContain('demo__delete_note');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();

    await watch.settle();
    expect(watch.consoleErrors).toEqual([]);
    await context.close();
    await writeConfig(config('write'));
  }, 120_000);

  it('console:isolation-and-key-storage — A’s session never shows or receives B’s data; the key lives in this tab’s sessionStorage and the Authorization header only', async () => {
    // B's markers are real and visible to B: the scan below could find them.
    const bravo = await newSession();
    await signIn(bravo.page, bravoWrite.key);
    await bravo.page
      .locator('#panel-sources')
      .getByRole('cell', { name: 'bravox7docs', exact: true })
      .waitFor();
    expect(await pageText(bravo.page)).toContain('ws-bravo-x7');
    await bravo.context.close();

    const { context, page, watch } = await newSession();
    await signIn(page, alphaWrite.key);
    const texts: string[] = [];
    for (const view of ['Sources', 'Tools', 'Client configs', 'Limits and usage', 'Activity']) {
      await openView(page, view);
      await page.locator('.panel:not([hidden]) .panel-body > :not(.muted)').first().waitFor();
      texts.push(await pageText(page));
    }
    await openView(page, 'Search and query');
    // The words of B's document: A's index must not answer with it.
    await page.getByLabel('Question or search words').fill('rotation vault secret ledger Mondays');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.locator('#panel-playground .results').waitFor();
    await page.getByRole('button', { name: 'Ask' }).click();
    await page.getByRole('heading', { name: 'Answer' }).waitFor();
    texts.push(await pageText(page));
    await openView(page, 'Call a tool');
    await page.getByLabel('Tool', { exact: true }).selectOption('demo__list_notes');
    await page.getByRole('button', { name: 'Call demo__list_notes' }).click();
    await page.locator('#panel-call pre.content').waitFor();
    texts.push(await pageText(page));

    // Storage while signed in: this tab's sessionStorage only.
    const signedIn = await storage(page);
    expect(signedIn).toEqual({ session: [['agw-console:key', alphaWrite.key]], local: 0, cookie: '' });
    expect(await context.cookies()).toEqual([]);
    // Another tab of the same browser profile, and a new profile: signed out.
    const otherTab = await context.newPage();
    await otherTab.goto(`${gateway.url}/console`);
    await otherTab.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await storage(otherTab)).session).toEqual([]);
    await otherTab.close();
    const fresh = await newSession();
    await fresh.page.goto(`${gateway.url}/console`);
    await fresh.page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect((await storage(fresh.page)).session).toEqual([]);
    await fresh.context.close();

    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByRole('heading', { name: 'Sign in' }).waitFor();
    expect(await storage(page)).toEqual({ session: [], local: 0, cookie: '' });
    expect(await context.cookies()).toEqual([]);

    await watch.settle();
    for (const text of texts) expectNoBravo(text, 'page text');
    expect(watch.responses.length).toBeGreaterThan(10);
    for (const response of watch.responses) expectNoBravo(response.body, `response of ${response.url}`);
    expectKeyOnlyInAuthorization(watch, alphaWrite.key);
    expect(watch.consoleErrors).toEqual([]);
    await context.close();
  }, 120_000);

  it('console:static-headers — the page and its files carry the strict CSP and security headers and revalidate by ETag', async () => {
    for (const path of ['/console', '/console/', '/console/app.js', '/console/console.css']) {
      const response = await fetch(`${gateway.url}${path}`);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('content-security-policy')).toBe(
        "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; font-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
      );
      expect(response.headers.get('x-content-type-options')).toBe('nosniff');
      expect(response.headers.get('referrer-policy')).toBe('no-referrer');
      expect(response.headers.get('cache-control')).toBe('no-cache');
      expect(response.headers.get('set-cookie')).toBeNull();
      const etag = response.headers.get('etag') as string;
      expect((await fetch(`${gateway.url}${path}`, { headers: { 'if-none-match': etag } })).status).toBe(304);
    }
    const html = await (await fetch(`${gateway.url}/console`)).text();
    expect(html).not.toMatch(/<script(?![^>]*\bsrc=)/);
    expect(html).not.toMatch(/\sstyle=|<style/);
    expect(html).not.toMatch(/https?:\/\//);
    expect((await fetch(`${gateway.url}/console/missing.js`)).status).toBe(404);
  });
});

it('console:off-by-default — without server.console.enabled /console is an unknown route: 401 without a key, 404 with one', async () => {
  const key = newKey();
  const harness = await startHarness({ workspaces: [{ name: 'w', keys: [keyRecord(key)] }] });
  try {
    for (const path of ['/console', '/console/', '/console/app.js']) {
      expect((await get(`${harness.url}${path}`)).status, path).toBe(401);
      const response = await get(`${harness.url}${path}`, key.key);
      expect(response.status, path).toBe(404);
      expect(((await response.json()) as { error: { code: string } }).error.code).toBe('not_found');
      expect(response.headers.get('content-security-policy')).toBeNull();
    }
  } finally {
    await harness.stop();
  }
});
