// The connector port: a data source yields items, each with its own stable identity. The sync
// engine turns items into documents and chunks; connectors know nothing about the store.
export interface SourceItem {
  /** The item's identity inside its source (a path, a primary key, a URI). */
  readonly externalId: string;
  readonly title: string;
  readonly body: string;
  readonly url: string | undefined;
  readonly updatedAt: string | undefined;
}

/** What a connector may tell the sync engine while it lists (progress, issue 39). */
export interface ListingHooks {
  /** The number of items this listing will consider, when the connector knows it before reading
   * them (the files connector walks the tree first). Items it then skips are not yielded. */
  total?(count: number): void;
}

export interface Connector {
  items(signal: AbortSignal, hooks?: ListingHooks): AsyncIterable<SourceItem>;
  /** Calls `changed` when the source may have changed (e.g. a file was written); returns a stop
   * function. Sources without change notification rely on their sync schedule alone. */
  watch?(changed: () => void): () => void;
}
