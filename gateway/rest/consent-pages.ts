// The two pages of a consent that a browser opens without a key (issue 42):
// GET /connect?ticket=<ticket> — the link of a URL elicitation — sends the browser to the console (the
// workspace's own when it signs in with OAuth), which signs the user in and starts the flow with the
// ticket; the ticket itself proves nothing (POST /agent/connections/start checks it against the
// signed-in caller). GET /oauth/upstream/callback is the redirect URI at every upstream
// authorization server: the sealed state and the browser's cookie decide; the page says connected,
// or why not in general terms, and never shows a code, a token or the server's words. Both pages are
// plain HTML with no script, a strict CSP, no caching and no referrer (the callback URL has the code).
import type { FastifyInstance, FastifyReply } from 'fastify';
import { ConsentRefusedError, type ConsentRefusal } from '../connections/index.js';
import type { ConnectionRouteDeps } from './connections-routes.js';
import { clearedCookie, cookieValue } from './consent-cookie.js';

const PAGE_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-store',
  'x-content-type-options': 'nosniff',
  'cross-origin-opener-policy': 'same-origin',
};

const REFUSALS: Readonly<Record<ConsentRefusal, string>> = {
  state: 'This sign-in link is not valid or has expired. Call the tool again for a new link.',
  browser: 'This sign-in was started in another browser. Open the link again in this browser.',
  replayed: 'This sign-in was already completed or used. Call the tool again if you are not connected.',
  issuer: 'The answer came from an authorization server other than the one this sign-in was sent to.',
  denied: 'The authorization server did not grant access.',
  source: 'This source no longer connects per user.',
  exchange: 'The authorization server did not accept the sign-in. Try again.',
};

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function page(reply: FastifyReply, status: number, title: string, text: string): FastifyReply {
  const body = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title><style>body{font:16px system-ui,sans-serif;margin:3rem auto;max-width:36rem;padding:0 1rem}</style></head><body><h1>${escapeHtml(title)}</h1><p>${escapeHtml(text)}</p></body></html>`;
  return reply.code(status).headers(PAGE_HEADERS).type('text/html; charset=utf-8').send(body);
}

function text(value: unknown): string | undefined {
  return typeof value === 'string' && value.length <= 8192 ? value : undefined;
}

export function registerConsentPages(
  app: FastifyInstance,
  deps: ConnectionRouteDeps & {
    readonly consoleEnabled: boolean;
    readonly hasIdentity: (workspace: string) => boolean;
  },
): void {
  const { connections } = deps;
  const options = { config: { access: 'public' as const } };

  app.get<{ Querystring: { ticket?: unknown } }>('/connect', options, async (request, reply) => {
    const ticket = text(request.query.ticket) ?? '';
    const opened = connections.seal.openTicket(ticket);
    if (opened === undefined) return page(reply, 400, 'Link expired', REFUSALS.state);
    if (!deps.consoleEnabled)
      return page(
        reply,
        200,
        'Connect your account',
        'Sign in to start: POST /agent/connections/start with your API key or token and {"ticket": "<the last part of this link>"}, then open the authorize_url it returns in this browser.',
      );
    const base = deps.hasIdentity(opened.workspace)
      ? `/w/${encodeURIComponent(opened.workspace)}/console`
      : '/console';
    await Promise.resolve();
    return reply
      .code(302)
      .headers(PAGE_HEADERS)
      .header('location', `${base}/#connect=${encodeURIComponent(ticket)}`)
      .send();
  });

  app.get('/oauth/upstream/callback', options, async (request, reply) => {
    const query = (request.query ?? {}) as Record<string, unknown>;
    void reply.header('set-cookie', clearedCookie(connections.callbackUrl));
    try {
      const done = await connections.complete(
        {
          code: text(query['code']),
          state: text(query['state']),
          iss: text(query['iss']),
          error: text(query['error']),
        },
        cookieValue(request.headers.cookie),
        (target) => deps.target(target.workspace, target.source),
      );
      return page(
        reply,
        200,
        'Connected',
        `Your ${done.source} account is connected. Return to your client: it can retry now.`,
      );
    } catch (error) {
      if (error instanceof ConsentRefusedError)
        return page(reply, 400, 'Not connected', REFUSALS[error.reason]);
      request.log.warn({ errorName: (error as Error).name }, 'consent callback failed');
      return page(reply, 502, 'Not connected', 'The authorization server could not be reached. Try again.');
    }
  });
}
