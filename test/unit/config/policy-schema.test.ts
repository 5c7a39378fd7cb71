// The config contract's CEL policies (issue 41 part 3): a rule that cannot compile, names what a rule
// cannot see, or could cost more than the bounds refuses the config at its path.
import { describe, expect, it } from 'vitest';
import {
  checkPolicyExpression,
  formatProblems,
  validateConfig,
  type ConfigParseResult,
} from '../../../gateway/config/index.js';

const HASH = `sha256:${'a'.repeat(64)}`;

function configWith(policies: unknown[], keyPolicies?: unknown[]): unknown {
  return {
    version: 1,
    workspaces: [
      {
        name: 'acme',
        governance: { policies },
        keys: [
          { id: 'Ab3dE5gH7k', hash: HASH, ...(keyPolicies === undefined ? {} : { policies: keyPolicies }) },
        ],
      },
    ],
  };
}

const rule = (when: string, extra: Record<string, unknown> = {}) => ({
  name: 'r',
  effect: 'deny',
  when,
  message: 'no',
  ...extra,
});

function problems(result: ConfigParseResult): string {
  if (result.ok) throw new Error('expected the config to be refused');
  return formatProblems(result.problems);
}

describe('policy schema', () => {
  it('accepts a rule over principal, tool and args and defaults its tools to every tool', () => {
    const result = validateConfig(
      configWith([
        rule("tool.name == 'gh__create_issue' && args.project != 'x' && 'admin' in principal.scopes"),
      ]),
    );
    if (!result.ok) throw new Error(formatProblems(result.problems));
    expect(result.config.workspaces[0]!.governance.policies?.[0]?.tools).toEqual(['*']);
  });

  it('refuses a rule that does not parse, with its path', () => {
    expect(problems(validateConfig(configWith([rule('true'), rule('args.x >', { name: 's' })])))).toContain(
      'workspaces[0].governance.policies[1].when: does not parse: at 1:8: found > but expecting end of input',
    );
  });

  it("refuses a key's rule with its path", () => {
    expect(problems(validateConfig(configWith([], [rule('principal.subjct == "a"')])))).toContain(
      'workspaces[0].keys[0].policies[0].when: principal has no field subjct',
    );
  });

  it('refuses a huge rule, too many rules and duplicate names', () => {
    expect(problems(validateConfig(configWith([rule(`args.a == '${'x'.repeat(1100)}'`)])))).toContain(
      'workspaces[0].governance.policies[0].when: Too big: expected string to have <=1024 characters',
    );
    const many = Array.from({ length: 33 }, (_, index) => rule('true', { name: `r${index}` }));
    expect(problems(validateConfig(configWith(many)))).toContain(
      'workspaces[0].governance.policies: Too big',
    );
    expect(problems(validateConfig(configWith([rule('true'), rule('false')])))).toContain(
      'workspaces[0].governance.policies[1].name: duplicate policy name r',
    );
  });
});

describe('checkPolicyExpression', () => {
  const problem = (text: string) => {
    const checked = checkPolicyExpression(text);
    return checked.ok ? undefined : checked.problem;
  };

  it.each([
    ["args.sql.matches('(?i)^\\\\s*select\\\\b')", undefined],
    ['args.items.all(i, i.project == principal.claims.project)', undefined],
    ["has(args.project) && args.project in ['a', 'b']", undefined],
    ['tool.annotations.readOnlyHint == true || type(args.n) == double', undefined],
    ['foo == 1', 'names foo; a rule sees principal, tool and args'],
    ['lowerAscii(args.s)', 'calls lowerAscii, which is not a function of the CEL standard library'],
    ["tool.title == 'x'", 'tool has no field title (it has name, source, upstreamName, access, annotations)'],
    ['args.a.all(x, args.b.exists(y, x == y))', 'nests a comprehension inside another (its range included)'],
    [
      'args.a.map(x, [x, x]).all(y, y.size() > 0)',
      'nests a comprehension inside another (its range included)',
    ],
    ['args.a.all(x, x in args.b)', expect.stringContaining('reads args inside a comprehension')],
    ['size(args.a)', 'is not a condition (it must evaluate to true or false)'],
    ["'text'", 'is not a condition (it must evaluate to true or false)'],
    ['principal.subject', 'is not a condition (it must evaluate to true or false)'],
    [`${'('.repeat(40)}true${')'.repeat(40)}`, 'nests brackets more than 32 deep'],
    [`args${'.x'.repeat(40)} == 1`, 'nests more than 32 deep'],
    [
      Array.from({ length: 5 }, (_, i) => `args.l${i}.all(x, x > 0)`).join(' && '),
      'has 5 comprehensions (all, exists, exists_one, map, filter); at most 4',
    ],
    [
      Array.from({ length: 110 }, () => 'args.x').join('||'),
      'has more than 300 nodes once parsed (macros expanded)',
    ],
  ])('%s', (text, expected) => {
    expect(problem(text)).toEqual(expected);
  });
});
