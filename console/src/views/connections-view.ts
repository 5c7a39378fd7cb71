// The signed-in user's own connections to `user` sources (issue 42, GET /agent/connections): each
// source, connected or not, with the authorization server that granted it, the scope and the times;
// Connect starts the upstream sign-in (POST /agent/connections/start, whose answer binds this browser
// with an HttpOnly cookie) and sends the browser to the authorization URL; Revoke forgets the grant
// (DELETE /agent/connections/<source>). `followConnectLink` does the same start for the ticket of an
// elicitation link (`/connect?ticket=…`, which the gateway redirects to `#connect=<ticket>`). No
// token ever reaches the page: the gateway keeps them.
import { el, replace, show, table, when } from '../dom.js';
import type { View, ViewContext } from '../view.js';
import { failure } from './failure.js';

interface ConnectionRow {
  readonly source: string;
  readonly connected: boolean;
  readonly issuer?: string;
  readonly scope?: string;
  readonly connected_at?: string;
  readonly refreshed_at?: string;
  readonly expires_at?: string;
}

interface ConnectionsBody {
  readonly connections: readonly ConnectionRow[];
}

interface Started {
  readonly source: string;
  readonly authorize_url: string;
}

/** Starts a sign-in at the source's authorization server and navigates there (same tab, so the
 * binding cookie the gateway set goes back with the callback). Only an http(s) URL is followed. */
async function startConnect(context: ViewContext, by: { source: string } | { ticket: string }) {
  const started = await context.api.post<Started>('/agent/connections/start', by, { keepCookie: true });
  const url = new URL(started.authorize_url);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    throw new Error('The gateway answered an authorization URL that is not http(s).');
  context.announce(`Opening the sign-in for ${started.source}…`);
  location.assign(url.href);
}

function statusLine(panel: HTMLElement): HTMLElement {
  const line = el('div', { class: 'connection-status' });
  panel.prepend(line);
  return line;
}

function connectButton(row: ConnectionRow, context: ViewContext, status: () => HTMLElement) {
  return el(
    'button',
    {
      type: 'button',
      class: 'small',
      'aria-label': `Connect ${row.source}`,
      onclick: (event) => {
        const button = event.currentTarget as HTMLButtonElement;
        button.disabled = true;
        replace(status(), el('p', { role: 'status' }, `Starting the sign-in for ${row.source}…`));
        startConnect(context, { source: row.source }).catch((error: unknown) => {
          button.disabled = false;
          replace(status(), failure(`Connecting ${row.source}`, error, false));
        });
      },
    },
    'Connect',
  );
}

function revokeButton(
  row: ConnectionRow,
  context: ViewContext,
  status: () => HTMLElement,
  reload: () => Promise<void>,
) {
  return el(
    'button',
    {
      type: 'button',
      class: 'small',
      'aria-label': `Revoke ${row.source}`,
      onclick: (event) => {
        const button = event.currentTarget as HTMLButtonElement;
        button.disabled = true;
        context.api
          .delete(`/agent/connections/${encodeURIComponent(row.source)}`)
          .then(async () => {
            await reload();
            context.announce(`The connection to ${row.source} is revoked.`);
          })
          .catch((error: unknown) => {
            button.disabled = false;
            replace(status(), failure(`Revoking ${row.source}`, error, false));
          });
      },
    },
    'Revoke',
  );
}

export const connectionsView: View = {
  id: 'connections',
  label: 'Connections',
  async render(panel, context) {
    let body: ConnectionsBody;
    try {
      body = await context.api.get<ConnectionsBody>('/agent/connections');
    } catch (error) {
      return replace(panel, failure('Loading connections', error));
    }
    let line: HTMLElement | undefined;
    const status = () => (line ??= statusLine(panel));
    const reload = () => connectionsView.render(panel, context);
    const rows = body.connections.map((row) => [
      el('span', { class: 'name' }, row.source),
      row.connected
        ? el('span', { class: 'ok' }, 'Connected')
        : el('span', { class: 'muted' }, 'Not connected'),
      show(row.issuer),
      show(row.scope),
      when(row.connected_at),
      when(row.refreshed_at),
      when(row.expires_at),
      row.connected ? revokeButton(row, context, status, reload) : connectButton(row, context, status),
    ]);
    replace(
      panel,
      el(
        'p',
        { class: 'hint' },
        'Sources that call their server as you, with your own grant there. Connect signs you in at the ' +
          "source's authorization server in this tab; the gateway keeps the tokens, this page never sees them.",
      ),
      rows.length === 0
        ? el('p', {}, 'No source of this workspace that you can see connects per user.')
        : table(
            `${rows.length} source${rows.length === 1 ? '' : 's'} connecting per user`,
            ['Source', 'Status', 'Issuer', 'Scope', 'Connected', 'Refreshed', 'Access expires', 'Action'],
            rows,
          ),
    );
  },
};

/** The start of an elicitation link's consent: the ticket names the source and the user it was made
 * for; the gateway refuses another user's (403) or an expired one (400), and that refusal is shown
 * in `panel` (nothing is followed). */
export async function followConnectLink(panel: HTMLElement, context: ViewContext, ticket: string) {
  const line = statusLine(panel);
  replace(line, el('p', { role: 'status' }, 'Starting the sign-in from your link…'));
  try {
    await startConnect(context, { ticket });
  } catch (error) {
    replace(line, failure('Connecting from the link', error, false));
    context.announce('The link could not be followed.');
  }
}
