// The layer map of gateway/ and operator/ (DESIGN D27, docs/architecture.md), checked by `npm run lint`.
// A room is a folder (or a lone file) directly under gateway/ or operator/. A room may import only
// rooms on a lower layer: never one above, never a sibling on its own layer. No import cycles at all.
// `npm run gen:architecture` draws the picture in docs/architecture.md from the same table.

/** Top to bottom. Each layer: a name, what it holds, and its rooms. */
export const layers = [
  { name: 'entry points', holds: 'the CLI and the CRD generator', rooms: ['gateway/cli', 'operator/gen'] },
  {
    name: 'composition roots',
    holds: 'build every part once and hand it down',
    rooms: ['gateway/main.ts', 'operator/operator-main.ts'],
  },
  // Below main.ts, not beside it: main.ts reads as the sequence of steps these build.
  {
    name: 'composition',
    holds: 'the parts the composition root builds, one concept each',
    rooms: ['gateway/composition'],
  },
  { name: 'application', holds: 'the fastify instance and its routes', rooms: ['gateway/app.ts'] },
  {
    name: 'faces',
    holds: 'what a client or the cluster talks to',
    rooms: ['gateway/mcp', 'gateway/rest', 'gateway/console', 'operator/controllers'],
  },
  {
    name: 'edge and operator runtime',
    holds: 'HTTP hooks every route shares; the operator queue, watches and leader election',
    rooms: ['gateway/edge', 'operator/runtime'],
  },
  {
    name: 'features',
    holds: 'request-time services the faces compose',
    rooms: [
      'gateway/tool-search',
      'gateway/subscriptions',
      'gateway/limits',
      'gateway/governance',
      'operator/kube',
    ],
  },
  {
    name: 'sources',
    holds: 'what a workspace has connected: tool catalogues and knowledge',
    rooms: ['gateway/discovery', 'gateway/knowledge', 'operator/api'],
  },
  { name: 'upstream', holds: 'connections to upstream MCP servers', rooms: ['gateway/upstream'] },
  {
    name: 'upstream grants',
    holds: "the gateway's OAuth client: token requests and users' upstream connections",
    rooms: ['gateway/connections'],
  },
  {
    name: 'rest apis',
    holds: 'OpenAPI documents read as tools, their HTTP requests and results (pure)',
    rooms: ['gateway/openapi'],
  },
  { name: 'identity', holds: 'keys, tokens, permissions', rooms: ['gateway/auth'] },
  { name: 'reach', holds: 'which addresses a tenant may reach', rooms: ['gateway/reach'] },
  { name: 'shared state', holds: 'Redis connection, locks and ciphers', rooms: ['gateway/shared-state'] },
  { name: 'config', holds: 'the config contract and its loaders', rooms: ['gateway/config'] },
  { name: 'telemetry', holds: 'logs, metrics, traces, audit', rooms: ['gateway/telemetry'] },
  { name: 'errors', holds: 'the closed error catalogue', rooms: ['gateway/errors'] },
  {
    name: 'primitives',
    holds: 'leaf helpers and protocol constants with no project imports',
    rooms: ['gateway/platform', 'gateway/protocol', 'gateway/version.ts'],
  },
];

/** @param {string} room */
const escape = (room) => room.replace(/[.]/g, '\\.');
/** A path pattern matching one room: a folder and everything below it, or one file. */
/** @param {string} room */
export const roomPattern = (room) => (room.endsWith('.ts') ? `^${escape(room)}$` : `^${escape(room)}/`);

const layerRules = layers.flatMap((layer, level) =>
  layer.rooms.map((room) => {
    const notBelow = layers
      .slice(0, level + 1)
      .flatMap((l) => l.rooms)
      .filter((other) => other !== room);
    return {
      name: `layer:${room}`,
      comment: `${room} (layer "${layer.name}") imports only rooms on a lower layer (docs/architecture.md)`,
      severity: 'error',
      from: { path: roomPattern(room) },
      to: { path: notBelow.map(roomPattern) },
    };
  }),
);

const rooms = layers.flatMap((l) => l.rooms);

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    ...layerRules,
    {
      name: 'no-cycles',
      comment: 'No import cycle, type-only imports included (docs/architecture.md)',
      severity: 'error',
      from: { path: '^(gateway|operator)/' },
      to: { circular: true },
    },
    {
      name: 'gateway-never-imports-operator',
      comment: 'DESIGN §4: only the CLI (one binary, `agent-gateway operator`) reaches into operator/',
      severity: 'error',
      from: { path: '^gateway/', pathNot: '^gateway/cli/' },
      to: { path: '^operator/' },
    },
    {
      name: 'room-on-the-map',
      comment: 'Every folder or file under gateway/ and operator/ is a room of the layer map',
      severity: 'error',
      from: { path: '^(gateway|operator)/', pathNot: rooms.map(roomPattern) },
      to: {},
    },
  ],
  options: {
    includeOnly: '^(gateway|operator)/',
    exclude: { path: '\\.d\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { extensions: ['.ts', '.js'] },
  },
};
