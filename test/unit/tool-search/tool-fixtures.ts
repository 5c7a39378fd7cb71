// Fixtures of the tool search unit tests (in-memory twins only): catalog tools, a small catalog of
// published-looking tools, configs with and without embeddings, a clock whose timers run when a
// test says, and a ToolSearch over the hashing embedder.
import { validateConfig, type GatewayConfig } from '../../../gateway/config/index.js';
import type { CatalogTool } from '../../../gateway/discovery/index.js';
import { WorkspaceEmbeddings, type EmbeddingProvider } from '../../../gateway/knowledge/index.js';
import { ToolSearch } from '../../../gateway/tool-search/index.js';

export function tool(
  source: string,
  name: string,
  description: string,
  parameters: Record<string, string> = {},
): CatalogTool {
  const inputSchema = {
    type: 'object' as const,
    properties: Object.fromEntries(
      Object.entries(parameters).map(([p, d]) => [p, { type: 'string', description: d }]),
    ),
  };
  return {
    name: `${source}__${name}`,
    source,
    upstreamName: name,
    description,
    permission: 'read',
    inputSchema,
    annotations: undefined,
    definition: { name, description, inputSchema },
  };
}

export const CATALOG: CatalogTool[] = [
  tool('github', 'create_pull_request', 'Create a new pull request in a GitHub repository.', {
    owner: 'Repository owner',
    repo: 'Repository name',
    title: 'PR title',
  }),
  tool('github', 'list_issues', 'List issues in a GitHub repository with filtering options.', {
    state: 'open, closed or all',
  }),
  tool('gitlab', 'create_merge_request', 'Create a new merge request in a GitLab project.', {
    project_id: 'Project ID or path',
  }),
  tool('time', 'get_current_time', 'Get the current time in a specific timezone.', {
    timezone: "IANA timezone name, e.g. 'Europe/Warsaw'",
  }),
  tool('memory', 'createEntities', 'Create multiple new entities in the knowledge graph.', {
    entities: 'The entities to create',
  }),
  tool('fs', 'read_text_file', 'Read the complete contents of a file from the file system as text.', {
    path: 'Path of the file',
  }),
];

export function configWith(embeddings: boolean): GatewayConfig {
  const result = validateConfig({
    version: 1,
    workspaces: [
      {
        name: 'acme',
        ...(embeddings
          ? { embeddings: { baseUrl: 'http://127.0.0.1:9/v1', model: 'hashing-v1', queryTimeoutMs: 200 } }
          : {}),
      },
    ],
  });
  if (!result.ok) throw new Error('fixture config invalid');
  return result.config;
}

/** A clock whose timers run only when a test says so (`fire`), in the order they were set. */
export function manualClock(start = 1_000_000) {
  const timers: { at: number; run: () => void; cancelled: boolean }[] = [];
  const clock = {
    now: start,
    timers,
    /** Delays of the timers still pending. */
    pending: () => timers.filter((t) => !t.cancelled).map((t) => t.at - clock.now),
    /** Moves the clock to the first pending timer and runs it. */
    fire: () => {
      const next = timers.find((t) => !t.cancelled);
      if (next === undefined) throw new Error('no timer pending');
      next.cancelled = true;
      clock.now = Math.max(clock.now, next.at);
      next.run();
    },
    vectorClock: {
      now: () => clock.now,
      schedule: (run: () => void, ms: number) => {
        const timer = { at: clock.now + ms, run, cancelled: false };
        timers.push(timer);
        return () => {
          timer.cancelled = true;
        };
      },
    },
  };
  return clock;
}

export function searchWith(provider: EmbeddingProvider, clock = manualClock()) {
  let config = configWith(true);
  const embeddings = new WorkspaceEmbeddings(
    () => config,
    () => provider,
    { now: () => clock.now, sleep: () => Promise.resolve() },
  );
  return {
    search: new ToolSearch(embeddings, { clock: clock.vectorClock }),
    embeddings,
    config: () => config,
    setConfig: (next: GatewayConfig) => {
      config = next;
    },
  };
}
