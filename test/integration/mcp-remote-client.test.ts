// Issue 8.11 with a client nobody here wrote: mcp-remote (the stdio bridge the Claude Desktop snippet
// uses) in front of the gateway, driven over stdio by the v1 SDK client. A read key calling a write
// tool must get a plain MCP error naming the access it lacks, not an OAuth step-up that makes
// mcp-remote try Dynamic Client Registration.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { describe, expect, it } from 'vitest';
import { demoSource, keyRecord, newKey } from '../support/gateway-document.js';
import { startWorkspace, fileHarness } from '../support/gateway-harness.js';

const reader = newKey();
let authDir: string;

const h = fileHarness(
  async () => {
    authDir = await mkdtemp(join(tmpdir(), 'agw-mcp-remote-'));
    return startWorkspace({ mcpSources: [demoSource()], keys: [keyRecord(reader)] });
  },
  () => rm(authDir, { recursive: true, force: true }),
);

describe('mcp-remote in front of the gateway', () => {
  it('mcp:write-denied-without-oauth — mcp-remote relays the denial as an MCP error and never registers an OAuth client', async () => {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [
        resolve('node_modules/mcp-remote/dist/proxy.js'),
        `${h.url}/mcp`,
        '--header',
        `Authorization: Bearer ${reader.key}`,
        '--allow-http',
        '--transport',
        'http-only',
      ],
      env: { ...process.env, MCP_REMOTE_CONFIG_DIR: authDir },
      stderr: 'pipe',
    });
    let stderr = '';
    transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const client = new Client({ name: 'mcp-remote-check', version: '1.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.map((tool) => tool.name)).toContain('demo__add');
      expect(tools.map((tool) => tool.name)).not.toContain('demo__create_note');
      const denied = await client.callTool({ name: 'demo__create_note', arguments: { text: 'hi' } }).then(
        () => undefined,
        (error: unknown) => error as { code?: number; message?: string },
      );
      expect(denied?.code).toBe(-31003);
      expect(denied?.message).toContain('demo__create_note needs an API key with write access');
      const sum = await client.callTool({ name: 'demo__add', arguments: { a: 2, b: 3 } });
      expect(sum.content).toEqual([{ type: 'text', text: '5' }]);
    } finally {
      await client.close();
    }
    expect(stderr).not.toMatch(/Dynamic Client Registration|registerClient|Authentication required/i);
  });
});
