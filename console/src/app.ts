// The workspace console (issue 25, docs/console.md): sign in with an API key, or an access token
// from the identity provider (oauth-sign-in.ts), kept in this tab's sessionStorage only, then one
// panel per view of the workspace as that key sees it. Sign-out (or a 401 from the gateway) forgets
// the key or token and empties every panel. Loaded as a module from /console/;
// the page has no inline script or style (the CSP allows none). Opened at /w/<workspace>/console it
// is that workspace's console: it signs in to that workspace's own resource (console-base.ts).
// Opened as `#connect=<ticket>` (where an elicitation link `/connect?ticket=…` redirects), it signs
// the user in as usual (the fragment survives the OAuth round trip), then starts that connection
// (views/connections-view.ts).
import { ApiError, GatewayApi } from './api.js';
import { WORKSPACE } from './console-base.js';
import { byId, el, replace } from './dom.js';
import { KeyStore } from './key-store.js';
import { McpClient } from './mcp.js';
import { CALLBACK_PATH, finishSignIn, resourceMetadata, startSignIn } from './oauth-sign-in.js';
import type { View, ViewContext } from './view.js';
import { activityView } from './views/activity-view.js';
import { callView, chooseTool } from './views/call-view.js';
import { clientsView } from './views/clients-view.js';
import { connectionsView, followConnectLink } from './views/connections-view.js';
import { playgroundView } from './views/playground-view.js';
import type { SourcesBody } from './views/sources-view.js';
import { sourcesView } from './views/sources-view.js';
import { toolsView } from './views/tools-view.js';
import { usageView } from './views/usage-view.js';

const VIEWS: readonly View[] = [
  sourcesView,
  toolsView,
  playgroundView,
  callView,
  connectionsView,
  clientsView,
  usageView,
  activityView,
];

const keys = new KeyStore(sessionStorage);
let context: ViewContext | undefined;
/** The ticket of the elicitation link the page was opened with, until the signed-in page uses it. */
let pendingTicket: string | undefined;

const signInView = byId<HTMLElement>('sign-in-view');
const workspaceView = byId<HTMLElement>('workspace-view');
const keyInput = byId<HTMLInputElement>('api-key');
const signInStatus = byId<HTMLElement>('sign-in-status');
const who = byId<HTMLElement>('who');
const signOutButton = byId<HTMLButtonElement>('sign-out');
const nav = byId<HTMLElement>('views-nav');
const panels = byId<HTMLElement>('panels');
const live = byId<HTMLElement>('live');

function announce(message: string): void {
  // Emptied first so the same message twice is read twice.
  live.textContent = '';
  window.setTimeout(() => (live.textContent = message), 50);
}

function panelOf(view: View): HTMLElement {
  return byId<HTMLElement>(`panel-${view.id}`);
}

async function open(view: View, focus: boolean): Promise<void> {
  if (context === undefined) return;
  for (const button of nav.querySelectorAll('button'))
    button.setAttribute('aria-current', String(button.dataset['view'] === view.id));
  for (const other of VIEWS) panelOf(other).hidden = other !== view;
  const body = panelOf(view).querySelector<HTMLElement>('.panel-body');
  if (body === null) return;
  replace(body, el('p', { class: 'muted' }, 'Loading…'));
  if (focus) panelOf(view).querySelector<HTMLElement>('h2')?.focus();
  try {
    await view.render(body, context);
  } catch (error) {
    if (!(error instanceof ApiError && error.status === 401)) throw error;
  }
}

function buildShell(): void {
  for (const view of VIEWS) {
    nav.append(
      el(
        'button',
        {
          type: 'button',
          'data-view': view.id,
          'aria-controls': `panel-${view.id}`,
          onclick: () => void open(view, true),
        },
        view.label,
      ),
    );
    panels.append(
      el(
        'section',
        { id: `panel-${view.id}`, class: 'panel', 'aria-labelledby': `heading-${view.id}`, hidden: true },
        el(
          'div',
          { class: 'row spread' },
          el('h2', { id: `heading-${view.id}`, tabindex: -1 }, view.label),
          el(
            'button',
            {
              type: 'button',
              class: 'small',
              'aria-label': `Reload ${view.label}`,
              onclick: () => void open(view, false),
            },
            'Reload',
          ),
        ),
        el('div', { class: 'panel-body' }),
      ),
    );
  }
}

function signOut(message: string): void {
  keys.clear();
  context = undefined;
  for (const view of VIEWS) panelOf(view).querySelector('.panel-body')?.replaceChildren();
  who.textContent = '';
  workspaceView.hidden = true;
  signOutButton.hidden = true;
  signInView.hidden = false;
  signInStatus.textContent = message;
  keyInput.focus();
}

/** `#connect=<ticket>`: the ticket, or undefined for any other fragment. */
function ticketInFragment(): string | undefined {
  const match = /^#connect=([A-Za-z0-9._~%-]{1,8192})$/.exec(location.hash);
  if (match?.[1] === undefined) return undefined;
  try {
    return decodeURIComponent(match[1]);
  } catch {
    return undefined;
  }
}

/** Takes the ticket from the fragment (and the fragment out of the address bar and history). */
function takeTicket(): void {
  const ticket = ticketInFragment();
  if (ticket === undefined) return;
  pendingTicket = ticket;
  history.replaceState(null, '', `${location.pathname}${location.search}`);
  if (context === undefined)
    signInStatus.textContent = 'Sign in to connect your account: the connection starts right after.';
}

/** Starts the pending link's connection in the Connections view (which shows a refusal). */
async function followPendingTicket(): Promise<void> {
  const ticket = pendingTicket;
  if (context === undefined || ticket === undefined) return;
  pendingTicket = undefined;
  await open(connectionsView, true);
  const body = panelOf(connectionsView).querySelector<HTMLElement>('.panel-body');
  if (body !== null) await followConnectLink(body, context, ticket);
}

async function signIn(key: string): Promise<void> {
  const api = new GatewayApi(key, (message) => signOut(`Signed out: ${message}`));
  signInStatus.textContent = 'Signing in…';
  let sources: SourcesBody;
  try {
    sources = await api.get<SourcesBody>('/agent/sources');
    // A console opened for one workspace works with that workspace's credentials only (its MCP
    // endpoint refuses the others).
    if (WORKSPACE !== undefined && sources.workspace !== WORKSPACE)
      throw new Error(`this key belongs to another workspace than ${WORKSPACE}.`);
  } catch (error) {
    keys.clear();
    signInStatus.textContent = `Sign-in failed: ${error instanceof Error ? error.message : String(error)}`;
    keyInput.focus();
    return;
  }
  keys.set(key);
  keyInput.value = '';
  signInStatus.textContent = '';
  context = {
    api,
    mcp: new McpClient(api),
    announce,
    openCall: (tool) => {
      chooseTool(tool);
      void open(callView, true);
    },
  };
  who.textContent = `Workspace ${sources.workspace}`;
  signInView.hidden = true;
  workspaceView.hidden = false;
  signOutButton.hidden = false;
  announce(`Signed in to workspace ${sources.workspace}.`);
  if (pendingTicket !== undefined) await followPendingTicket();
  else await open(sourcesView, true);
}

buildShell();
byId<HTMLFormElement>('sign-in-form').addEventListener('submit', (event) => {
  event.preventDefault();
  const key = keyInput.value.trim();
  if (key !== '') void signIn(key);
});
signOutButton.addEventListener('click', () =>
  signOut('Signed out. The key is no longer stored in this tab.'),
);

/** "Sign in with <issuer>" for each authorization server the gateway trusts (none without `oauth`). */
async function offerOAuth(): Promise<void> {
  const metadata = await resourceMetadata();
  if (metadata === undefined || metadata.authorization_servers.length === 0) return;
  const box = byId<HTMLElement>('oauth-sign-in');
  for (const issuer of metadata.authorization_servers)
    box.append(
      el(
        'button',
        {
          type: 'button',
          onclick: () => {
            signInStatus.textContent = `Signing in with ${issuer}…`;
            // The link's ticket comes back as the fragment of the page after the round trip.
            const keep = pendingTicket === undefined ? '' : `#connect=${encodeURIComponent(pendingTicket)}`;
            startSignIn(metadata, issuer, keep).catch((error: unknown) => {
              signInStatus.textContent = `Sign-in failed: ${error instanceof Error ? error.message : String(error)}`;
            });
          },
        },
        `Sign in with ${issuer}`,
      ),
    );
  box.hidden = false;
}

async function start(): Promise<void> {
  if (location.pathname === CALLBACK_PATH) {
    await finishSignIn().then(
      async (token) => {
        takeTicket();
        await signIn(token);
      },
      (error: unknown) => {
        takeTicket();
        signInStatus.textContent = `Sign-in failed: ${error instanceof Error ? error.message : String(error)}`;
      },
    );
  } else {
    takeTicket();
    const stored = keys.get();
    if (stored !== undefined) await signIn(stored);
  }
  await offerOAuth();
}

// A link opened in a tab that already shows the console changes only the fragment.
window.addEventListener('hashchange', () => {
  takeTicket();
  void followPendingTicket();
});
void start();
