// The one place where a subscription's client-facing resource URI is resolved to (source, upstream
// URI) and an upstream URI is turned back into the client's (issue 24). It follows the per-source
// naming policy of item-names.ts: `agw://<source>/…` for every source, a bare upstream URI routed to
// the unprefixed source that lists it. A URI of a source the key cannot see resolves to nothing,
// exactly like an unknown one.
import { canSeeSource, type Principal } from '../auth/index.js';
import { clientUri, resolveResourceUri } from './item-names.js';
import type { FanOutDeps } from './source-fanout.js';

export interface SubscriptionTarget {
  readonly source: string;
  readonly uri: string;
}

/** Longest client URI a subscription accepts (D23); a longer one is refused as invalid params. */
export const MAX_SUBSCRIPTION_URI_LENGTH = 4096;

export async function resolveSubscriptionUri(
  deps: FanOutDeps,
  principal: Principal,
  requested: string,
): Promise<SubscriptionTarget | undefined> {
  const resolved = await resolveResourceUri(deps, principal, requested).catch(() => undefined);
  if (resolved === undefined) return undefined;
  const source = principal.workspace.mcpSources.find((s) => s.name === resolved.source);
  if (source === undefined || !canSeeSource(principal, source.name)) return undefined;
  return { source: source.name, uri: resolved.uri };
}

/** The URI a notification names for the key; undefined when the source is gone from its config. */
export function clientUriFor(principal: Principal, target: SubscriptionTarget): string | undefined {
  const source = principal.workspace.mcpSources.find((s) => s.name === target.source);
  return source === undefined ? undefined : clientUri(source, target.uri);
}
