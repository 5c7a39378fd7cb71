// Progressive tool disclosure (issue 23) with outside MCP clients nobody here wrote: the published
// Python SDK (PyPI mcp, installed by test/infra/ensure-python-mcp.sh, driven through
// test/fixtures/clients/find_and_call.py) and the MCP Inspector's CLI (npm
// @modelcontextprotocol/inspector, --cli). In a `search` workspace each lists only call_tool and
// find_tools, finds the demo tool for a task and calls it through call_tool, in both protocol eras;
// a read-only key neither finds nor calls a write tool.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoSource, keyRecord, newKeys } from '../support/gateway-document.js';
import { startWorkspace, fileHarness } from '../support/gateway-harness.js';
import { runPythonClient } from '../support/python-client.js';

const [reader, writer] = newKeys(2);
let inspectorHome: string;

const INSPECTOR = resolve('node_modules/@modelcontextprotocol/inspector/clients/launcher/build/index.js');
const WRITE_TOOLS = ['demo__create_note', 'demo__delete_note'];
const DENIED = 'Permission denied: demo__create_note needs an API key with write access';

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<Run> {
  return new Promise((done) => {
    execFile(command, args, { env, timeout: 60_000, maxBuffer: 8 << 20 }, (error, stdout, stderr) => {
      const code = error === null ? 0 : typeof error.code === 'number' ? error.code : -1;
      done({ code, stdout, stderr });
    });
  });
}

// What find_and_call.py prints: one JSON line.
interface PythonSaw {
  protocol_version: string;
  tools: string[];
  find_is_error: boolean;
  found: string[];
  found_input_schemas: Record<string, unknown>;
  called: string | null;
  call?: { is_error: boolean; content: unknown[] };
  call_error?: { code: number; message: string };
}

function python(key: string, mode: 'auto' | 'legacy', args: string[]): Promise<PythonSaw> {
  return runPythonClient<PythonSaw>('find_and_call.py', h.url, key, mode, args);
}

interface InspectorRun {
  readonly code: number;
  readonly result: Record<string, unknown> | undefined;
  readonly error: string | undefined;
}

/** One Inspector CLI invocation (`--format json`: the result on stdout, an error envelope on stderr). */
async function inspector(key: string, era: 'legacy' | 'modern', args: string[]): Promise<InspectorRun> {
  if (!existsSync(INSPECTOR))
    throw new Error(`the MCP Inspector is not installed at ${INSPECTOR}: run \`npm ci\``);
  const { code, stdout, stderr } = await run(
    process.execPath,
    [
      INSPECTOR,
      '--cli',
      `${h.url}/mcp`,
      '--format',
      'json',
      '--protocol-era',
      era,
      '--header',
      `Authorization: Bearer ${key}`,
      ...args,
    ],
    // Its storage and catalog go to a scratch HOME, never the user's.
    { PATH: process.env['PATH'] ?? '', HOME: inspectorHome, MCP_INSPECTOR_SECRET_STORE: 'memory' },
  );
  expect(stdout + stderr).not.toContain(key);
  const out = stdout.trim() === '' ? undefined : (JSON.parse(stdout) as { result?: Record<string, unknown> });
  const envelope = stderr.split('\n').find((line) => line.startsWith('{"error"'));
  const error =
    envelope === undefined
      ? undefined
      : (JSON.parse(envelope) as { error: { message: string } }).error.message;
  if (code === 0 && out?.result === undefined) throw new Error(`inspector printed no result: ${stderr}`);
  return { code, result: out?.result, error: error ?? (code === 0 ? undefined : stderr) };
}

function foundNames(result: Record<string, unknown> | undefined): string[] {
  const structured = result?.['structuredContent'] as { tools?: { name: string }[] } | undefined;
  return (structured?.tools ?? []).map((tool) => tool.name);
}

const h = fileHarness(
  async () => {
    inspectorHome = await mkdtemp(join(tmpdir(), 'agw-inspector-home-'));
    return startWorkspace({
      toolDisclosure: 'search',
      mcpSources: [demoSource('demo')],
      keys: [keyRecord(reader), keyRecord(writer, { access: 'write' })],
    });
  },
  () => rm(inspectorHome, { recursive: true, force: true }),
);

describe('outside clients in search mode', () => {
  it('tools:python-sdk-client — the Python SDK lists only call_tool and find_tools, finds demo__add for a task and calls it through call_tool, in both eras', async () => {
    for (const [mode, version] of [
      ['auto', '2026-07-28'],
      ['legacy', '2025-11-25'],
    ] as const) {
      const saw = await python(writer.key, mode, [
        '--query',
        'sum two numbers together',
        '--limit',
        '3',
        '--arguments',
        '{"a": 2, "b": 40}',
      ]);
      expect(saw.protocol_version).toBe(version);
      expect(saw.tools).toEqual(['call_tool', 'find_tools']);
      expect(saw.find_is_error).toBe(false);
      expect(saw.found[0]).toBe('demo__add');
      expect(saw.found_input_schemas['demo__add']).toMatchObject({
        type: 'object',
        properties: { a: {}, b: {} },
      });
      expect(saw.called).toBe('demo__add');
      expect(saw.call).toEqual({ is_error: false, content: [{ type: 'text', text: '42' }] });
    }
  }, 120_000);

  it('tools:python-sdk-read-key — with the Python SDK a read-only key neither finds nor calls a write tool', async () => {
    for (const mode of ['auto', 'legacy'] as const) {
      const saw = await python(reader.key, mode, [
        '--query',
        'save a note',
        '--limit',
        '20',
        '--call',
        'demo__create_note',
        '--arguments',
        '{"text": "from python"}',
      ]);
      expect(saw.find_is_error).toBe(false);
      for (const name of WRITE_TOOLS) expect(saw.found).not.toContain(name);
      expect(saw.call).toBeUndefined();
      expect(saw.call_error?.message).toContain(DENIED);
    }
    // The search itself works for this key: the read tool next to them is found.
    const notes = await python(reader.key, 'auto', ['--query', 'list my notes', '--arguments', '{}']);
    expect(notes.found).toContain('demo__list_notes');
    expect(notes.call?.is_error).toBe(false);
  }, 120_000);

  it('tools:inspector-cli-client — the Inspector CLI lists only call_tool and find_tools, finds demo__add for a task and calls it through call_tool, in both eras', async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const listed = await inspector(writer.key, era, ['--method', 'tools/list']);
      expect(listed.code, listed.error).toBe(0);
      const tools = listed.result?.['tools'] as { name: string }[];
      expect(tools.map((tool) => tool.name).sort()).toEqual(['call_tool', 'find_tools']);
      const found = await inspector(writer.key, era, [
        '--method',
        'tools/call',
        '--tool-name',
        'find_tools',
        '--tool-arg',
        'query=sum two numbers together',
        'limit=3',
      ]);
      expect(found.code, found.error).toBe(0);
      expect(found.result?.['isError'] ?? false).toBe(false);
      const name = foundNames(found.result)[0];
      expect(name).toBe('demo__add');
      const called = await inspector(writer.key, era, [
        '--method',
        'tools/call',
        '--tool-name',
        'call_tool',
        '--tool-args-json',
        JSON.stringify({ name, arguments: { a: 2, b: 40 } }),
      ]);
      expect(called.code, called.error).toBe(0);
      expect(called.result?.['content']).toEqual([{ type: 'text', text: '42' }]);
    }
  }, 120_000);

  it('tools:inspector-cli-read-key — with the Inspector CLI a read-only key neither finds nor calls a write tool', async () => {
    for (const era of ['modern', 'legacy'] as const) {
      const found = await inspector(reader.key, era, [
        '--method',
        'tools/call',
        '--tool-name',
        'find_tools',
        '--tool-arg',
        'query=save a note',
        'limit=20',
      ]);
      expect(found.code, found.error).toBe(0);
      for (const name of WRITE_TOOLS) expect(foundNames(found.result)).not.toContain(name);
      const denied = await inspector(reader.key, era, [
        '--method',
        'tools/call',
        '--tool-name',
        'call_tool',
        '--tool-args-json',
        JSON.stringify({ name: 'demo__create_note', arguments: { text: 'from the inspector' } }),
      ]);
      expect(denied.code).not.toBe(0);
      expect(denied.result).toBeUndefined();
      expect(denied.error).toContain(DENIED);
    }
  }, 120_000);
});
