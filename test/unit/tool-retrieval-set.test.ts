// The issue-23 tool-retrieval set (test/bench/tool-retrieval): the checked-in catalogue and tasks
// pass validation (thresholds, unique ids, every label a catalogued tool), the catalogue matches the
// pinned server list it was gathered from, and the validator itself catches each kind of fault.
import { describe, expect, it } from 'vitest';
import { SERVER_SPECS } from '../bench/tool-retrieval/server-specs.js';
import {
  THRESHOLDS,
  loadToolRetrievalSet,
  validateToolRetrievalSet,
  type ToolRetrievalSet,
} from '../bench/tool-retrieval/tool-retrieval-set.js';

const set = loadToolRetrievalSet();

function tinySet(): ToolRetrievalSet {
  const tool = { name: 'get_current_time', description: 'Get current time', inputSchema: { type: 'object' } };
  return {
    catalogue: {
      generated: '2026-01-01',
      servers: [
        {
          id: 'time',
          package: 'mcp-server-time',
          registry: 'pypi',
          version: '1',
          method: 'tools/list',
          tools: [tool],
        },
      ],
    },
    tasks: [
      {
        id: 't001',
        task: 'what time is it in Tokyo',
        relevant: [{ server: 'time', tool: 'get_current_time' }],
      },
    ],
  };
}

describe('tool-retrieval set', () => {
  it('tools:retrieval-set — the checked-in set is valid and meets the issue-23 thresholds', () => {
    expect(validateToolRetrievalSet(set)).toEqual([]);
    const tools = set.catalogue.servers.reduce((sum, server) => sum + server.tools.length, 0);
    expect(set.catalogue.servers.length).toBeGreaterThanOrEqual(THRESHOLDS.servers);
    expect(tools).toBeGreaterThanOrEqual(THRESHOLDS.tools);
    expect(set.tasks.length).toBeGreaterThanOrEqual(THRESHOLDS.tasks);
  });

  it('tools:retrieval-set — the catalogue holds exactly the pinned servers, gathered from the registries', () => {
    const gathered = set.catalogue.servers.map(({ id, package: name, registry, version }) => ({
      id,
      package: name,
      registry,
      version,
    }));
    const pinned = SERVER_SPECS.map(({ id, package: name, registry, version }) => ({
      id,
      package: name,
      registry,
      version,
    }));
    expect(gathered).toEqual(pinned);
    expect(new Set(set.catalogue.servers.map((server) => server.registry))).toEqual(new Set(['npm', 'pypi']));
    expect(set.catalogue.generated).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('tools:retrieval-set — every catalogued server is the subject of at least one task', () => {
    const asked = new Set(set.tasks.flatMap((task) => task.relevant.map((ref) => ref.server)));
    expect(set.catalogue.servers.map((server) => server.id).filter((id) => !asked.has(id))).toEqual([]);
  });

  it('tools:retrieval-set — the validator names unknown labels, repeated ids and missing tools', () => {
    const base = tinySet();
    const [task] = base.tasks;
    const broken: ToolRetrievalSet = {
      catalogue: base.catalogue,
      tasks: [
        task!,
        { ...task!, task: 'time in Lima' },
        { id: 't002', task: 'convert 3pm', relevant: [{ server: 'time', tool: 'convert_time' }] },
        { id: 't003', task: 'nothing', relevant: [] },
      ],
    };
    const problems = validateToolRetrievalSet(broken);
    expect(problems).toContain('task id t001 is used twice');
    expect(problems).toContain('task t002 names time/convert_time, not in the catalogue');
    expect(problems).toContain('task t003 has no relevant tool');
    expect(problems).toContain(`1 servers, fewer than ${THRESHOLDS.servers}`);
    expect(problems).toContain(`1 tools, fewer than ${THRESHOLDS.tools}`);
    expect(problems).toContain(`4 tasks, fewer than ${THRESHOLDS.tasks}`);
  });

  it('tools:retrieval-set — the validator refuses repeated servers, tools and malformed server ids', () => {
    const base = tinySet();
    const [server] = base.catalogue.servers;
    const broken: ToolRetrievalSet = {
      catalogue: {
        generated: base.catalogue.generated,
        servers: [
          { ...server!, tools: [...server!.tools, ...server!.tools] },
          server!,
          { ...server!, id: 'Time_Server' },
        ],
      },
      tasks: base.tasks,
    };
    const problems = validateToolRetrievalSet(broken);
    expect(problems).toContain('server id time is used twice');
    expect(problems).toContain('server time lists tool get_current_time twice');
    expect(problems).toContain('server id Time_Server is not [a-z0-9-]');
  });
});
