// The built-in secret masking (issue 41 part 5): every credential kind masked in text and in the
// strings of a result, the rest left as it was (and the same object when nothing was masked), and
// linear time on hostile input built to make a backtracking pattern quadratic.
import { describe, expect, it } from 'vitest';
import { maskText, maskValue, SECRET_KINDS, type MaskCounts } from '../../../gateway/governance/index.js';
import { fakeCredentials, secretPart } from '../../support/fake-credentials.js';

const samples = fakeCredentials();

describe('secret masking', () => {
  it('guardrails:mask-kinds — each credential kind is masked and counted; its surroundings stay', () => {
    for (const kind of SECRET_KINDS) {
      const counts: MaskCounts = {};
      const text = `before ${samples[kind]} after`;
      const masked = maskText(text, counts);
      expect(masked, kind).not.toContain(secretPart(kind, samples[kind]));
      expect(masked, kind).toContain(`[masked:${kind}]`);
      expect(masked.startsWith('before '), kind).toBe(true);
      expect(masked.endsWith(' after'), kind).toBe(true);
      expect(counts, kind).toEqual({ [kind]: 1 });
    }
  });

  it('guardrails:mask-no-false-positives — ordinary text, ids, hashes and prose stay as they are', () => {
    const ordinary = [
      'Bearer tokens are described in RFC 6750; send a bearer token in the header.',
      'commit 478f5b4a959861d109cbd56e92f2f800c40861b1 and sha256:9f86d081884c7d659a2feaa0c55ad015',
      'ask_for_input and task_live_update_counter are tool names',
      '-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----',
      'An AKIA prefix alone (AKIA) is not a key; neither is eyJ without dots.',
      'user_secret_access_keys: none',
    ];
    for (const text of ordinary) {
      const counts: MaskCounts = {};
      expect(maskText(text, counts)).toBe(text);
      expect(counts).toEqual({});
    }
  });

  it('guardrails:mask-result-leaves — text content, structuredContent leaves, resource text and key-named values; binary data untouched', () => {
    const image = Buffer.from(`${samples.aws_access_key_id} inside an image`).toString('base64');
    const result = {
      content: [
        { type: 'text', text: `token ${samples.github_token}` },
        { type: 'image', data: image, mimeType: 'image/png' },
        { type: 'resource', resource: { uri: 'file:///k.pem', text: samples.private_key } },
      ],
      structuredContent: {
        deep: [{ nested: { value: samples.jwt } }],
        AWS_SECRET_ACCESS_KEY: secretPart('aws_secret_access_key', samples.aws_secret_access_key),
        count: 3,
      },
    };
    const counts: MaskCounts = {};
    const masked = maskValue(result, counts) as typeof result;
    const text = JSON.stringify(masked);
    for (const kind of ['github_token', 'private_key', 'jwt', 'aws_secret_access_key'] as const)
      expect(text).not.toContain(secretPart(kind, samples[kind]));
    expect(masked.content[1]).toBe(result.content[1]);
    expect(masked.structuredContent.count).toBe(3);
    expect(counts).toEqual({ github_token: 1, private_key: 1, jwt: 1, aws_secret_access_key: 1 });
    // The original is not changed (knowledge records are shared).
    expect(JSON.stringify(result)).toContain(samples.github_token);
    const clean = { content: [{ type: 'text', text: 'nothing secret here at all' }] };
    expect(maskValue(clean, {})).toBe(clean);
  });

  it('guardrails:mask-unterminated-key — a private key cut off (no END line) is masked to its first blank line', () => {
    const cut = samples.private_key.split('\n').slice(0, 4).join('\n');
    const masked = maskText(`${cut}\n\nthe rest of the page`, {});
    expect(masked).toBe('[masked:private_key]\n\nthe rest of the page');
  });

  it('guardrails:mask-deep-value — a value nested past the walk bound is still masked', () => {
    let deep: unknown = { leak: samples.stripe_key };
    for (let i = 0; i < 2000; i += 1) deep = [deep];
    const masked = JSON.stringify(maskValue(deep, {}));
    expect(masked).not.toContain(samples.stripe_key);
    expect(masked).toContain('[masked:stripe_key]');
  });

  it('guardrails:mask-linear — hostile inputs of 1 and 4 MB take about 4 times as long, and little at all', () => {
    const hostile = (size: number): string[] => [
      // Each prefix starts a run the patterns must not rescan from every later position.
      'eyJ'.repeat(size / 3),
      'eyJa.'.repeat(size / 5),
      '-----BEGIN PRIVATE KEY-----\n'.repeat(size / 28),
      '-----BEGIN CERTIFICATE-----'.repeat(size / 27),
      'Bearer '.repeat(size / 7),
      'ghp_'.repeat(size / 4),
      'aws_secret_access_key='.repeat(size / 22),
      'A'.repeat(size),
      `AKIA${'A'.repeat(size)}`,
      'xoxb-'.repeat(size / 5),
    ];
    const time = (inputs: string[]) => {
      const started = performance.now();
      for (const input of inputs) maskText(input, {});
      return performance.now() - started;
    };
    time(hostile(64 * 1024)); // warm up
    const small = time(hostile(1024 * 1024));
    const large = time(hostile(4 * 1024 * 1024));
    // Quadratic would be 16 times; leave room for a noisy shared machine.
    expect(large / Math.max(small, 1)).toBeLessThan(9);
    expect(large).toBeLessThan(8000);
  });
});
