// The published MCP servers whose tools make the issue-23 retrieval catalogue, pinned to the version
// gathered, with how each starts over stdio. Credentials are dummies (never real secrets): these
// servers refuse to start without one but list their tools without calling out. `{scratch}` is an
// empty per-server folder under ~/.cache/agw-tool-catalogue.

export interface ServerSpec {
  readonly id: string;
  readonly registry: 'npm' | 'pypi';
  readonly package: string;
  readonly version: string;
  /** The executable the package installs (node_modules/.bin or the venv's bin). */
  readonly bin: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** Extra pip requirements installed beside a PyPI server, when its open pins resolve too new. */
  readonly pipExtra?: readonly string[];
}

const DUMMY = 'dummy-not-a-real-credential';

export const SERVER_SPECS: readonly ServerSpec[] = [
  {
    id: 'filesystem',
    registry: 'npm',
    package: '@modelcontextprotocol/server-filesystem',
    version: '2026.8.31',
    bin: 'mcp-server-filesystem',
    args: ['{scratch}'],
    env: {},
  },
  {
    id: 'desktop-commander',
    registry: 'npm',
    package: '@wonderwhy-er/desktop-commander',
    version: '0.2.52',
    bin: 'desktop-commander',
    args: [],
    env: {},
  },
  {
    id: 'git',
    registry: 'pypi',
    package: 'mcp-server-git',
    version: '2026.10.19',
    bin: 'mcp-server-git',
    args: [],
    env: {},
  },
  {
    id: 'github',
    registry: 'npm',
    package: '@modelcontextprotocol/server-github',
    version: '2025.4.8',
    bin: 'mcp-server-github',
    args: [],
    env: { GITHUB_PERSONAL_ACCESS_TOKEN: DUMMY },
  },
  {
    id: 'gitlab',
    registry: 'npm',
    package: '@modelcontextprotocol/server-gitlab',
    version: '2025.4.25',
    bin: 'mcp-server-gitlab',
    args: [],
    env: { GITLAB_PERSONAL_ACCESS_TOKEN: DUMMY },
  },
  {
    id: 'slack',
    registry: 'npm',
    package: '@modelcontextprotocol/server-slack',
    version: '2025.4.25',
    bin: 'mcp-server-slack',
    args: [],
    env: { SLACK_BOT_TOKEN: DUMMY, SLACK_TEAM_ID: 'T00000000' },
  },
  {
    id: 'postgres',
    registry: 'npm',
    package: '@modelcontextprotocol/server-postgres',
    version: '0.6.2',
    bin: 'mcp-server-postgres',
    args: ['postgresql://localhost:1/none'],
    env: {},
  },
  {
    id: 'sqlite',
    registry: 'pypi',
    package: 'mcp-server-sqlite',
    version: '2025.4.25',
    bin: 'mcp-server-sqlite',
    args: ['--db-path', '{scratch}/catalogue.db'],
    env: {},
    // Its `mcp>=1.0.0` pin resolves to mcp 2.x, whose Server no longer has list_resources.
    pipExtra: ['mcp<2'],
  },
  {
    id: 'mongodb',
    registry: 'npm',
    package: 'mongodb-mcp-server',
    version: '3.0.4',
    bin: 'mongodb-mcp-server',
    args: [],
    env: {},
  },
  {
    id: 'memory',
    registry: 'npm',
    package: '@modelcontextprotocol/server-memory',
    version: '2026.8.31',
    bin: 'mcp-server-memory',
    args: [],
    env: { MEMORY_FILE_PATH: '{scratch}/memory.jsonl' },
  },
  {
    id: 'fetch',
    registry: 'pypi',
    package: 'mcp-server-fetch',
    version: '2026.10.24',
    bin: 'mcp-server-fetch',
    args: [],
    env: {},
  },
  {
    id: 'time',
    registry: 'pypi',
    package: 'mcp-server-time',
    version: '2026.10.19',
    bin: 'mcp-server-time',
    args: ['--local-timezone', 'Europe/Berlin'],
    env: {},
  },
  {
    id: 'puppeteer',
    registry: 'npm',
    package: '@modelcontextprotocol/server-puppeteer',
    version: '2025.5.12',
    bin: 'mcp-server-puppeteer',
    args: [],
    env: {},
  },
  {
    id: 'playwright',
    registry: 'npm',
    package: '@playwright/mcp',
    version: '0.0.83',
    bin: 'playwright-mcp',
    args: [],
    env: {},
  },
  {
    id: 'brave-search',
    registry: 'npm',
    package: '@modelcontextprotocol/server-brave-search',
    version: '0.6.2',
    bin: 'mcp-server-brave-search',
    args: [],
    env: { BRAVE_API_KEY: DUMMY },
  },
  {
    id: 'google-maps',
    registry: 'npm',
    package: '@modelcontextprotocol/server-google-maps',
    version: '0.6.2',
    bin: 'mcp-server-google-maps',
    args: [],
    env: { GOOGLE_MAPS_API_KEY: DUMMY },
  },
  {
    id: 'notion',
    registry: 'npm',
    package: '@notionhq/notion-mcp-server',
    version: '2.5.2',
    bin: 'notion-mcp-server',
    args: [],
    env: { NOTION_TOKEN: DUMMY },
  },
  {
    id: 'atlassian',
    registry: 'pypi',
    package: 'mcp-atlassian',
    version: '0.23.1',
    bin: 'mcp-atlassian',
    args: [],
    env: {
      JIRA_URL: 'https://example.atlassian.net',
      JIRA_USERNAME: 'nobody@example.com',
      JIRA_API_TOKEN: DUMMY,
      CONFLUENCE_URL: 'https://example.atlassian.net/wiki',
      CONFLUENCE_USERNAME: 'nobody@example.com',
      CONFLUENCE_API_TOKEN: DUMMY,
    },
  },
  {
    id: 'linear',
    registry: 'npm',
    package: 'linear-mcp-server',
    version: '0.1.0',
    bin: 'linear-mcp-server',
    args: [],
    env: { LINEAR_API_KEY: DUMMY },
  },
  {
    id: 'sentry',
    registry: 'npm',
    package: '@sentry/mcp-server',
    version: '0.39.0',
    bin: 'sentry-mcp',
    args: [`--access-token=${DUMMY}`],
    env: {},
  },
  {
    id: 'kubernetes',
    registry: 'npm',
    package: 'mcp-server-kubernetes',
    version: '4.1.7',
    bin: 'mcp-server-kubernetes',
    args: [],
    env: {},
  },
  {
    id: 'stripe',
    registry: 'npm',
    package: '@stripe/mcp',
    version: '0.2.5',
    bin: 'mcp',
    args: ['--tools=all', '--api-key=sk_test_dummy'],
    env: {},
  },
  {
    id: 'airtable',
    registry: 'npm',
    package: 'airtable-mcp-server',
    version: '1.14.0',
    bin: 'airtable-mcp-server',
    args: [],
    env: { AIRTABLE_API_KEY: DUMMY },
  },
];
