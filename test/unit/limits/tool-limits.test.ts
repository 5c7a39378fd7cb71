// Limits per tool and per identity (issue 41 part 4) on configs parsed by the real schema, with the
// in-memory limiter: which limits a call matches (key-style glob patterns over namespaced names),
// whose counter it is (API key, OAuth subject, identity rule, workspace), counter names that carry
// only digests, all-or-nothing admission, and the schema's refusals with their paths.
import { describe, expect, it } from 'vitest';
import { admit, principalForIdentity } from '../../../gateway/auth/identity-mapping.js';
import { principalFor, type Principal } from '../../../gateway/auth/index.js';
import { validateConfig, type WorkspaceConfig } from '../../../gateway/config/index.js';
import { MemoryRateLimiter } from '../../../gateway/limits/rate-limiter.js';
import { ToolLimits, toolLimitRules } from '../../../gateway/limits/tool-limits.js';

const ISSUER = 'https://id.example';
const KEY_A = { id: 'AAAAAAAAAA', hash: `sha256:${'a'.repeat(64)}` };
const KEY_B = { id: 'BBBBBBBBBB', hash: `sha256:${'b'.repeat(64)}` };

function parse(workspaces: Record<string, unknown>[]) {
  return validateConfig({
    version: 1,
    server: { publicUrl: 'https://gw.example' },
    oauth: {},
    workspaces,
  });
}

function workspaceWith(toolLimits: unknown[], name = 'acme'): WorkspaceConfig {
  const result = parse([
    {
      name,
      governance: { toolLimits },
      keys: [KEY_A, KEY_B],
      identity: {
        issuers: [{ issuer: ISSUER }],
        rules: [
          { name: 'staff', issuer: ISSUER, when: [{ claim: 'groups', contains: 'staff' }] },
          { name: 'bots', issuer: ISSUER, when: [{ claim: 'groups', contains: 'bots' }] },
        ],
      },
    },
  ]);
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.config.workspaces[0] as WorkspaceConfig;
}

function keyCaller(workspace: WorkspaceConfig, id = KEY_A.id): Principal {
  const key = workspace.keys.find((candidate) => candidate.id === id);
  if (key === undefined) throw new Error('no key');
  return principalFor(key, workspace);
}

function oauthCaller(workspace: WorkspaceConfig, subject: string, group = 'staff'): Principal {
  const claims = { sub: subject, groups: [group] };
  const admission = admit(workspace, ISSUER, claims);
  if (!admission.ok) throw new Error('not admitted');
  return principalForIdentity(admission, ISSUER, subject, claims, undefined);
}

const EMAIL = { name: 'email', tools: ['mail__send_*'], callsPerHour: 10 };

describe('which limits a call matches', () => {
  it('governance:tool-limit-rules — patterns over namespaced names pick the limits; each set window is one counter (minute and hour rates, a UTC-day quota)', () => {
    const workspace = workspaceWith([
      EMAIL,
      {
        name: 'writes',
        tools: ['*__create_*', 'mail__*'],
        per: 'workspace',
        callsPerMinute: 5,
        callsPerDay: 100,
      },
    ]);
    const caller = keyCaller(workspace);
    const rules = toolLimitRules('agw:', caller, 'mail__send_email');
    expect(rules.map((r) => [r.policy, r.kind, r.limit, r.periodMs, r.per])).toEqual([
      ['tool-email-hour', 'rate', 10, 3_600_000, 'subject'],
      ['tool-writes-minute', 'rate', 5, 60_000, 'workspace'],
      ['tool-writes-day', 'quota', 100, 86_400_000, 'workspace'],
    ]);
    expect(toolLimitRules('agw:', caller, 'github__create_issue').map((r) => r.policy)).toEqual([
      'tool-writes-minute',
      'tool-writes-day',
    ]);
    // Whole-name globs, as a key's tools: no partial match, no other spelling.
    const emailOnly = keyCaller(workspaceWith([EMAIL]));
    expect(toolLimitRules('agw:', emailOnly, 'mail__send_email')).toHaveLength(1);
    expect(toolLimitRules('agw:', emailOnly, 'mail__resend_email')).toEqual([]);
    expect(toolLimitRules('agw:', emailOnly, 'xmail__send_email')).toEqual([]);
    expect(toolLimitRules('agw:', emailOnly, 'send_email')).toEqual([]);
    expect(toolLimitRules('agw:', keyCaller(workspaceWith([])), 'mail__send_email')).toEqual([]);
  });
});

describe('whose counter a call counts on', () => {
  const key = (principal: Principal) => toolLimitRules('agw:', principal, 'mail__send_email')[0]?.key;

  it('governance:tool-limit-identities — per subject: each API key and each OAuth subject; per key: each key, or the identity rule of OAuth callers; per workspace: one', () => {
    const perSubject = workspaceWith([{ ...EMAIL, per: 'subject' }]);
    const subjectKeys = [
      key(keyCaller(perSubject, KEY_A.id)),
      key(keyCaller(perSubject, KEY_B.id)),
      key(oauthCaller(perSubject, 'alice')),
      key(oauthCaller(perSubject, 'bob')),
    ];
    expect(new Set(subjectKeys).size).toBe(4);
    // The same subject signed in under another rule is the same caller.
    expect(key(oauthCaller(perSubject, 'alice', 'bots'))).toBe(subjectKeys[2]);

    const perKey = workspaceWith([{ ...EMAIL, per: 'key' }]);
    expect(key(oauthCaller(perKey, 'alice'))).toBe(key(oauthCaller(perKey, 'bob')));
    expect(key(oauthCaller(perKey, 'alice'))).not.toBe(key(oauthCaller(perKey, 'alice', 'bots')));
    expect(key(keyCaller(perKey, KEY_A.id))).not.toBe(key(keyCaller(perKey, KEY_B.id)));

    const perWorkspace = workspaceWith([{ ...EMAIL, per: 'workspace' }]);
    const shared = new Set([
      key(keyCaller(perWorkspace, KEY_A.id)),
      key(keyCaller(perWorkspace, KEY_B.id)),
      key(oauthCaller(perWorkspace, 'alice')),
    ]);
    expect(shared.size).toBe(1);
    // Another workspace with the same limit name never shares a counter.
    const other = workspaceWith([{ ...EMAIL, per: 'workspace' }], 'globex');
    expect(key(keyCaller(other, KEY_A.id))).not.toBe([...shared][0]);
  });

  it('governance:tool-limit-key-names — counter names carry digests only, sit under the workspace hash tag and are bounded', () => {
    const subject = `user@example.com:{odd}*chars ${'x'.repeat(5000)}`;
    const workspace = workspaceWith([{ ...EMAIL, per: 'subject', callsPerMinute: 3, callsPerDay: 9 }]);
    const names = toolLimitRules('agw:', oauthCaller(workspace, subject), 'mail__send_email').map(
      (r) => r.key,
    );
    expect(names).toHaveLength(3);
    for (const name of names) {
      expect(name).toMatch(
        /^agw:\{[A-Za-z0-9_-]{32}\}:tool:[A-Za-z0-9_-]{32}:subject:[A-Za-z0-9_-]{32}:(minute|hour|day)$/,
      );
      expect(name.length).toBeLessThanOrEqual(140);
      for (const material of ['acme', 'email', 'user@', 'odd', KEY_A.id, 'oidc:'])
        expect(name).not.toContain(material);
    }
    const apiKeyNames = toolLimitRules('agw:', keyCaller(workspace), 'mail__send_email').map((r) => r.key);
    for (const name of apiKeyNames) expect(name).not.toContain(KEY_A.id);
  });
});

describe('ToolLimits on the in-memory limiter', () => {
  it('governance:tool-limit-admission — N calls per caller, then a refusal naming the limit; other callers and tools are untouched; a refusal by one limit counts none', async () => {
    let now = Date.UTC(2026, 10, 29, 12, 0, 0);
    const limits = new ToolLimits(new MemoryRateLimiter(() => now), () => 'agw:');
    const workspace = workspaceWith([
      { name: 'email', tools: ['mail__send_*'], callsPerHour: 3 },
      { name: 'mail', tools: ['mail__*'], per: 'workspace', callsPerMinute: 4 },
    ]);
    const alice = oauthCaller(workspace, 'alice');
    const bob = oauthCaller(workspace, 'bob');
    const outcomes = [];
    for (let i = 0; i < 4; i += 1) outcomes.push(await limits.admit(alice, 'mail__send_email'));
    expect(outcomes.slice(0, 3)).toEqual([undefined, undefined, undefined]);
    expect(outcomes[3]?.rule).toMatchObject({ limitName: 'email', window: 'hour', per: 'subject', limit: 3 });
    // One call every 20 minutes after the burst.
    expect(outcomes[3]?.retryAfterMs).toBe(1_200_000);
    // Alice's refused call did not count on the workspace's `mail` limit: Bob still has one of four.
    expect(await limits.admit(bob, 'mail__send_email')).toBeUndefined();
    const refused = await limits.admit(bob, 'mail__read_inbox');
    expect(refused?.rule).toMatchObject({ limitName: 'mail', per: 'workspace', window: 'minute' });
    expect(await limits.admit(bob, 'github__search')).toBeUndefined();
    now += 60_000;
    expect(await limits.admit(bob, 'mail__read_inbox')).toBeUndefined();
  });
});

describe('the schema', () => {
  it('governance:tool-limit-schema — a limit without a rate, a repeated name, a bad pattern or scope is refused with its path', () => {
    const problems = (toolLimits: unknown[]) => {
      const result = parse([{ name: 'acme', governance: { toolLimits } }]);
      return result.ok ? [] : result.problems.map((p) => `${p.path} ${p.message}`);
    };
    expect(problems([{ name: 'a', tools: ['x'] }])).toEqual([
      'workspaces[0].governance.toolLimits[0] set callsPerMinute, callsPerHour or callsPerDay',
    ]);
    expect(
      problems([
        { name: 'a', tools: ['x'], callsPerDay: 1 },
        { name: 'a', tools: ['y'], callsPerDay: 2 },
      ]),
    ).toEqual(['workspaces[0].governance.toolLimits[1].name duplicate tool limit a']);
    expect(problems([{ name: 'a', tools: ['x y'], callsPerDay: 1 }])).toHaveLength(1);
    expect(problems([{ name: 'a', tools: [], callsPerDay: 1 }])).toHaveLength(1);
    expect(problems([{ name: 'a', tools: ['x'], per: 'tenant', callsPerDay: 1 }])).toHaveLength(1);
    expect(problems([{ name: 'a', tools: ['x'], callsPerHour: 0 }])).toHaveLength(1);
    expect(problems([{ name: 'a', tools: ['x'], callsPerHour: 5 }])).toEqual([]);
  });
});
