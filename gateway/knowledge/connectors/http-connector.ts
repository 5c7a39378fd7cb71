// The `http` connector: a REST JSON endpoint read page by page (page number, cursor or Link header),
// each item mapped to a document through dot-path fields; authentication from a secret reference
// or an OAuth client-credentials token (issue 29).
import type { DataSourceConfig } from '../../config/index.js';
import { authorizedFetch, staticTokenSource } from '../../upstream/index.js';
import type { Connector, SourceItem } from './connector.js';
import type { ConnectorContext } from './connector-context.js';
import { ConnectorError } from './connector-error.js';
import { getPath, textOf } from './json-path.js';

type HttpSource = Extract<DataSourceConfig, { type: 'http' }>;

export class HttpSourceError extends ConnectorError {
  constructor(readonly status: number) {
    super(`the endpoint answered HTTP ${status}`);
    this.name = 'HttpSourceError';
  }
}

/** Without the token registry only a static secret works. */
function staticCredential(source: HttpSource) {
  const credential = source.credential;
  if (credential?.type === 'oauthClientCredentials')
    throw new ConnectorError('an oauthClientCredentials credential needs the gateway token registry');
  return credential;
}

function nextLink(header: string | null): string | undefined {
  if (header === null) return undefined;
  for (const part of header.split(',')) {
    const match = /<([^>]+)>\s*;\s*rel="?next"?/i.exec(part);
    if (match !== null) return match[1];
  }
  return undefined;
}

function toItem(source: HttpSource, raw: unknown): SourceItem | undefined {
  const id = textOf(getPath(raw, source.fields.id));
  if (id === undefined || id === '') return undefined;
  const bodyPaths = Array.isArray(source.fields.body) ? source.fields.body : [source.fields.body];
  const body = bodyPaths
    .map((path) => textOf(getPath(raw, path)))
    .filter((part): part is string => part !== undefined && part !== '')
    .join('\n\n');
  return {
    externalId: id,
    title: textOf(getPath(raw, source.fields.title)) ?? id,
    body,
    url: source.fields.url === undefined ? undefined : textOf(getPath(raw, source.fields.url)),
    updatedAt:
      source.fields.updatedAt === undefined ? undefined : textOf(getPath(raw, source.fields.updatedAt)),
  };
}

export function httpConnector(source: HttpSource, context: ConnectorContext): Connector {
  const headers: Record<string, string> = { accept: 'application/json' };
  // Under a tenant reach policy every connection (redirects and next pages too) is checked on the
  // address it dials; a refusal fails the sync with the reason. The credential goes on every page;
  // an OAuth token is cached per replica and refreshed once on a 401 (issue 29).
  const credentials =
    context.tokens?.forCredential(source.credential, {
      workspace: context.workspace ?? '',
      source: source.name,
      url: source.url,
      guard: context.network,
      timeoutMs: source.timeoutMs,
    }) ?? staticTokenSource(staticCredential(source), context.secrets);
  const get = authorizedFetch(context.network?.fetch() ?? fetch, credentials);
  return {
    async *items(signal): AsyncGenerator<SourceItem> {
      const pagination = source.pagination;
      let url: string | undefined = source.url;
      let page = pagination.type === 'page' ? pagination.startAt : 0;
      for (let fetched = 0; fetched < source.maxPages && url !== undefined; fetched += 1) {
        const target = new URL(url);
        if (pagination.type === 'page') target.searchParams.set(pagination.pageParam, String(page));
        const response = await get(target, {
          headers,
          signal: AbortSignal.any([signal, AbortSignal.timeout(source.timeoutMs)]),
        });
        if (!response.ok) {
          await response.body?.cancel();
          throw new HttpSourceError(response.status);
        }
        const body: unknown = await response.json();
        const items = getPath(body, source.itemsPath);
        if (!Array.isArray(items))
          throw new ConnectorError(`itemsPath "${source.itemsPath}" does not lead to an array`);
        for (const raw of items) {
          const item = toItem(source, raw);
          if (item !== undefined) yield item;
        }
        if (pagination.type === 'none') url = undefined;
        else if (pagination.type === 'page') {
          page += 1;
          if (items.length === 0) url = undefined;
        } else if (pagination.type === 'link') url = nextLink(response.headers.get('link'));
        else {
          const cursor = textOf(getPath(body, pagination.nextCursorPath));
          if (cursor === undefined || cursor === '' || items.length === 0) url = undefined;
          else {
            const next = new URL(source.url);
            next.searchParams.set(pagination.cursorParam, cursor);
            url = next.toString();
          }
        }
      }
      // A listing cut short must fail rather than succeed, or the items past the cap would be removed
      // from the index as deleted.
      if (url !== undefined)
        throw new ConnectorError(
          `stopped after maxPages (${source.maxPages}) with pages left; raise maxPages`,
        );
    },
  };
}
