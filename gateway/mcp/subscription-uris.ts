// The one place where a subscription's client-facing resource URI is resolved to (source, upstream
// URI) and an upstream URI is turned back into the client's (issue 24). Today that is the
// `agw://<source>/…` namespacing of resource-uri.ts; a per-source naming policy swaps it here only.
// A URI of a source the key cannot see resolves to nothing, exactly like an unknown one.
import { canSeeSource, type Principal } from '../auth/index.js';
import { namespacedUri, parseNamespacedUri } from './resource-uri.js';

export interface SubscriptionTarget {
  readonly source: string;
  readonly uri: string;
}

/** Longest client URI a subscription accepts (D23); a longer one is refused as invalid params. */
export const MAX_SUBSCRIPTION_URI_LENGTH = 4096;

export function resolveSubscriptionUri(
  principal: Principal,
  clientUri: string,
): SubscriptionTarget | undefined {
  const parsed = parseNamespacedUri(clientUri);
  if (parsed === undefined) return undefined;
  const source = principal.workspace.mcpSources.find((s) => s.name === parsed.source);
  if (source === undefined || !canSeeSource(principal, source.name)) return undefined;
  return { source: source.name, uri: parsed.uri };
}

export function clientUriFor(_principal: Principal, target: SubscriptionTarget): string {
  return namespacedUri(target.source, target.uri);
}
