// Guardrails benchmark (issue 41 part 5). Prints numbers and conditions; never asserts.
// The cost of the built-in secret masking on tool results, in process, beside a baseline measured
// in the same run: JSON.stringify of the same result, which the gateway does anyway to send it.
//  1. A small result (one short text item): the cost every tools/call pays.
//  2. A large text result (1 MiB of prose with 100 credentials in it).
//  3. A large structured result (20,000 string leaves, none secret).
//  4. Hostile text built to make backtracking patterns quadratic (4 MiB).
import { maskValue } from '../../gateway/governance/index.js';
import { fakeCredentials } from '../support/fake-credentials.js';

function p50(samples: number[]): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
}

/** p50 milliseconds of `run` over `rounds` runs after a warm-up. */
function measure(run: () => unknown, rounds: number): number {
  for (let i = 0; i < Math.min(20, rounds); i += 1) run();
  const samples: number[] = [];
  for (let i = 0; i < rounds; i += 1) {
    const started = performance.now();
    run();
    samples.push(performance.now() - started);
  }
  return p50(samples);
}

function row(label: string, result: unknown, rounds: number): void {
  const masked = measure(() => maskValue(result, {}), rounds);
  const baseline = measure(() => JSON.stringify(result), rounds);
  const bytes = JSON.stringify(result).length;
  console.log(
    `  ${label.padEnd(34)} ${bytes.toString().padStart(9)} B  mask p50 ${(masked * 1000).toFixed(1).padStart(9)} µs` +
      `  JSON.stringify p50 ${(baseline * 1000).toFixed(1).padStart(9)} µs  ratio ${(masked / baseline).toFixed(2)}`,
  );
}

export function guardrailsBench(): Promise<void> {
  const secrets = Object.values(fakeCredentials());
  const prose =
    'The deploy job for the pelican service reads its settings from the vault and writes a report. ';
  const parts: string[] = [];
  for (let i = 0; parts.join('').length < 1024 * 1024; i += 1)
    parts.push(i % 100 === 0 ? `${prose}key: ${secrets[i % secrets.length] ?? ''} ` : prose);
  const largeText = { content: [{ type: 'text', text: parts.join('') }] };
  const structured = {
    content: [{ type: 'text', text: 'see structuredContent' }],
    structuredContent: {
      rows: Array.from({ length: 5000 }, (_, i) => ({
        id: `row-${i}`,
        title: `Invoice ${i} for customer account`,
        status: i % 2 === 0 ? 'open' : 'closed',
        note: 'Exported from the billing system on the first of the month.',
      })),
    },
  };
  const small = { content: [{ type: 'text', text: 'The current time is 2026-11-29T10:30:02Z.' }] };
  const size = 4 * 1024 * 1024;
  const hostile = {
    content: [
      { type: 'text', text: 'eyJa.'.repeat(size / 5) },
      { type: 'text', text: '-----BEGIN PRIVATE KEY-----\n'.repeat(size / 28) },
      { type: 'text', text: 'Bearer '.repeat(size / 7) },
    ],
  };
  console.log(`\nGuardrails: secret masking (node ${process.version}, in process, p50 of each)`);
  row('small result (1 text item)', small, 20_000);
  row('large text (1 MiB, 100 secrets)', largeText, 40);
  row('large structured (20,000 leaves)', structured, 40);
  row('hostile text (12 MiB)', hostile, 5);
  return Promise.resolve();
}
