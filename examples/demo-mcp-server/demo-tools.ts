// The demo upstream's tools: a few read-only tools and a small note store with write tools, so a
// newcomer sees both permissions in `/agent/tools`. Built with the v2 server SDK.
import { McpServer } from '@modelcontextprotocol/server';
import { z } from 'zod';

export interface Note {
  readonly id: number;
  readonly title: string;
  readonly body: string;
}

export function createDemoServer(notes: Note[] = []): McpServer {
  const server = new McpServer({ name: 'agent-gateway-demo', version: '1.0.0' });
  let nextId = notes.reduce((max, n) => Math.max(max, n.id), 0) + 1;
  const text = (value: string) => ({ content: [{ type: 'text' as const, text: value }] });

  server.registerTool(
    'echo',
    {
      description: 'Returns the given text unchanged.',
      inputSchema: z.object({ text: z.string() }),
      annotations: { readOnlyHint: true },
    },
    ({ text: value }) => text(value),
  );
  server.registerTool(
    'add',
    {
      description: 'Adds two numbers.',
      inputSchema: z.object({ a: z.number(), b: z.number() }),
      annotations: { readOnlyHint: true },
    },
    ({ a, b }) => text(String(a + b)),
  );
  server.registerTool(
    'current_time',
    {
      description: 'The current time as an ISO 8601 string (UTC).',
      inputSchema: z.object({}),
      annotations: { readOnlyHint: true },
    },
    () => text(new Date().toISOString()),
  );
  server.registerTool(
    'list_notes',
    { description: 'Lists the saved notes.', inputSchema: z.object({}), annotations: { readOnlyHint: true } },
    () => text(JSON.stringify(notes)),
  );
  server.registerTool(
    'create_note',
    {
      description: 'Saves a note and returns its id.',
      inputSchema: z.object({ title: z.string().min(1), body: z.string() }),
      annotations: { readOnlyHint: false, destructiveHint: false },
    },
    ({ title, body }) => {
      const note = { id: nextId++, title, body };
      notes.push(note);
      return text(String(note.id));
    },
  );
  server.registerTool(
    'delete_note',
    {
      description: 'Deletes a note by id.',
      inputSchema: z.object({ id: z.number().int() }),
      annotations: { readOnlyHint: false, destructiveHint: true },
    },
    ({ id }) => {
      const index = notes.findIndex((n) => n.id === id);
      if (index < 0) return { ...text(`no note ${id}`), isError: true };
      notes.splice(index, 1);
      return text(`deleted ${id}`);
    },
  );
  return server;
}
