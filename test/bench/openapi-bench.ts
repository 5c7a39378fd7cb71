// OpenAPI documents read as tools (issue 44): how long the gateway's reader takes and how much memory
// it holds for real documents (the Petstore, GitHub's published 1,223-operation document) and for a
// hostile one refused by its expansion bound, with the time JSON.parse alone takes as the baseline
// in the same run. Never asserts.
import { readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { openApiCatalog } from '../../gateway/openapi/index.js';

const DOCUMENTS = [
  ['petstore (20 operations)', 'node_modules/@readme/oas-examples/3.0/json/petstore.json'],
  ['GitHub api.github.com (1,223 operations)', 'node_modules/@octokit/openapi/generated/api.github.com.json'],
] as const;

/** Ten schemas, each naming the next ten times: 10^10 leaves if written out. */
function fanOutDocument(): string {
  const schemas: Record<string, unknown> = { S0: { type: 'string' } };
  for (let level = 1; level <= 10; level += 1) {
    const properties: Record<string, unknown> = {};
    for (let i = 0; i < 10; i += 1) properties[`p${i}`] = { $ref: `#/components/schemas/S${level - 1}` };
    schemas[`S${level}`] = { type: 'object', properties };
  }
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 'fan-out', version: '1' },
    paths: {
      '/x': {
        post: {
          requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/S10' } } } },
          responses: { '200': { description: 'ok' } },
        },
      },
    },
    components: { schemas },
  });
}

async function timed(text: string, rounds: number): Promise<{ ms: number; tools: number; outcome: string }> {
  const times: number[] = [];
  let tools = 0;
  let outcome = 'loaded';
  for (let round = 0; round < rounds; round += 1) {
    const started = performance.now();
    try {
      const catalog = await openApiCatalog(text);
      tools = catalog.tools.length;
    } catch (error) {
      outcome = `refused: ${(error as { condition?: string }).condition ?? (error as Error).message}`;
    }
    times.push(performance.now() - started);
  }
  times.sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)] ?? 0, tools, outcome };
}

export async function openApiBench(): Promise<void> {
  const rounds = Number(process.env['BENCH_ROUNDS'] ?? 3);
  console.log('\n== OpenAPI documents read as tools (issue 44) ==');
  console.log(
    `conditions: Node ${process.version}, ${cpus().length} CPUs (${cpus()[0]?.model ?? '?'}); the reader alone, in this process, default limits; median of ${rounds} rounds; heap = retained after the last round, after a GC when --expose-gc`,
  );
  const gc = (globalThis as { gc?: () => void }).gc;
  for (const [label, text] of [
    ...DOCUMENTS.map(([name, path]) => [name, readFileSync(path, 'utf8')] as const),
    ['hostile fan-out (10^10 leaves written out)', fanOutDocument()] as const,
  ]) {
    const parseStarted = performance.now();
    JSON.parse(text);
    const parseMs = performance.now() - parseStarted;
    gc?.();
    const before = process.memoryUsage().heapUsed;
    const { ms, tools, outcome } = await timed(text, rounds);
    gc?.();
    const after = process.memoryUsage().heapUsed;
    console.log(
      `  ${label.padEnd(44)} ${(text.length / 1024).toFixed(0).padStart(6)} KiB  ${ms.toFixed(0).padStart(6)} ms (${(ms / Math.max(parseMs, 0.01)).toFixed(1)}x JSON.parse ${parseMs.toFixed(0)} ms)  tools ${String(tools).padStart(5)}  heap ${((after - before) / 1048576).toFixed(1)} MiB  ${outcome}`,
    );
  }
}
