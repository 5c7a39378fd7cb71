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

export interface Connector {
  items(signal: AbortSignal): AsyncIterable<SourceItem>;
  /** Calls `changed` when the source may have changed (e.g. a file was written); returns a stop
   * function. Sources without change notification rely on their sync schedule alone. */
  watch?(changed: () => void): () => void;
}
