// The CEL conformance cases (google/cel-spec v0.25.1 as shipped by @bufbuild/cel-spec 0.6.1) for the
// features policy rules use, run through the same library calls the gateway makes (parse, then plan
// in a standard environment, then evaluate). Every case is counted: passed, failed, or skipped with
// its reason (a feature a rule cannot reach, such as a protobuf message literal, or a case that
// needs a type checker, which @bufbuild/cel 0.6.1 does not export). The counts are printed and held
// exactly, so a library upgrade that changes any of them fails here and is looked at.
import {
  celEnv,
  celUint,
  isCelError,
  isCelList,
  isCelMap,
  isCelType,
  isCelUint,
  parse,
  plan,
} from '@bufbuild/cel';
import { equals, type Registry } from '@bufbuild/protobuf';
import { isReflectMessage } from '@bufbuild/protobuf/reflect';
import { anyUnpack } from '@bufbuild/protobuf/wkt';
import { getTestRegistry } from '@bufbuild/cel-spec/testdata/registry.js';
import {
  getConformanceSuite,
  type IncrementalTest,
  type IncrementalTestSuite,
} from '@bufbuild/cel-spec/testdata/tests.js';
import { describe, expect, it } from 'vitest';

type Value = NonNullable<Extract<IncrementalTest['original']['resultMatcher'], { case: 'value' }>['value']>;

/** The suites of the CEL spec's conformance data whose features a policy rule uses. */
const SUITES = [
  'basic',
  'comparisons',
  'conversions',
  'fields',
  'fp_math',
  'integer_math',
  'lists',
  'logic',
  'macros',
  'parse',
  'string',
] as const;

/** passed / failed / skipped per suite, as measured on @bufbuild/cel 0.6.1. */
const EXPECTED: Record<(typeof SUITES)[number], { passed: number; failed: number; skipped: number }> = {
  basic: { passed: 43, failed: 0, skipped: 0 },
  comparisons: { passed: 406, failed: 0, skipped: 0 },
  conversions: { passed: 109, failed: 0, skipped: 0 },
  fields: { passed: 53, failed: 7, skipped: 0 },
  fp_math: { passed: 30, failed: 0, skipped: 0 },
  integer_math: { passed: 64, failed: 0, skipped: 0 },
  lists: { passed: 39, failed: 0, skipped: 0 },
  logic: { passed: 30, failed: 0, skipped: 0 },
  macros: { passed: 44, failed: 0, skipped: 0 },
  parse: { passed: 219, failed: 0, skipped: 0 },
  string: { passed: 51, failed: 0, skipped: 0 },
};

/** The cases @bufbuild/cel 0.6.1 fails, and why that is safe for a policy rule. */
const KNOWN_FAILURES = new Map([
  // Backquoted field names (cel-spec 0.24+) do not parse: a rule using them is refused at load.
  ...[
    'field_access_slash',
    'field_access_dash',
    'field_access_dot',
    'has_field_slash',
    'has_field_dash',
    'has_field_dot',
  ].map((name) => [`fields/quoted_map_fields/${name}`, 'backquoted field names do not parse'] as const),
  // `{0: 1, 0u: 2}` should be an error (a repeated key); the library keeps one. Only a rule's own
  // literal can have it, never a call's arguments (JSON keys are strings).
  [
    'fields/qualified_identifier_resolution/map_value_repeat_key_heterogeneous',
    'repeated heterogeneous map key accepted',
  ],
]);

const registry = getTestRegistry();

class Skip extends Error {}

function casesOf(suite: IncrementalTestSuite, prefix = ''): { name: string; test: IncrementalTest }[] {
  const here = `${prefix}${suite.name}/`;
  return [
    ...suite.tests.map((test) => ({ name: `${here}${test.name}`, test })),
    ...suite.suites.flatMap((child) => casesOf(child, here)),
  ];
}

/** A conformance Value as a binding the library accepts. */
function input(value: Value): unknown {
  const kind = value.kind;
  switch (kind.case) {
    case 'nullValue':
      return null;
    case 'boolValue':
    case 'int64Value':
    case 'doubleValue':
    case 'stringValue':
    case 'bytesValue':
      return kind.value;
    case 'uint64Value':
      return celUint(kind.value);
    case 'listValue':
      return kind.value.values.map(input);
    case 'mapValue':
      return new Map(kind.value.entries.map((entry) => [input(entry.key!), input(entry.value!)]));
    case 'objectValue': {
      const message = anyUnpack(kind.value, registry);
      if (message === undefined) throw new Skip('an object binding of an unknown type');
      return message;
    }
    default:
      throw new Skip(`a ${kind.case ?? 'missing'} binding`);
  }
}

/** Whether the library's result is the expected Value. */
function same(result: unknown, value: Value, registry: Registry): boolean {
  const kind = value.kind;
  switch (kind.case) {
    case 'nullValue':
      return result === null;
    case 'boolValue':
    case 'int64Value':
    case 'stringValue':
      return result === kind.value;
    case 'uint64Value':
      return isCelUint(result) && result.value === kind.value;
    case 'doubleValue':
      return (
        typeof result === 'number' &&
        (Object.is(result, kind.value) ||
          (Number.isNaN(result) && Number.isNaN(kind.value)) ||
          result === kind.value)
      );
    case 'bytesValue':
      return (
        result instanceof Uint8Array &&
        result.length === kind.value.length &&
        result.every((byte, i) => byte === kind.value[i])
      );
    case 'listValue': {
      if (!isCelList(result) || result.size !== kind.value.values.length) return false;
      return kind.value.values.every((element, index) => same(result.get(index), element, registry));
    }
    case 'mapValue': {
      if (!isCelMap(result) || result.size !== kind.value.entries.length) return false;
      return kind.value.entries.every((entry) => {
        const key = input(entry.key!) as Parameters<typeof result.get>[0];
        return result.has(key) && same(result.get(key), entry.value!, registry);
      });
    }
    case 'typeValue':
      return isCelType(result) && result.name === kind.value;
    case 'objectValue': {
      const expected = anyUnpack(kind.value, registry);
      if (expected === undefined) throw new Skip('an object result of an unknown type');
      if (!isReflectMessage(result)) return false;
      const desc = registry.getMessage(expected.$typeName);
      return (
        desc !== undefined && result.desc.typeName === desc.typeName && equals(desc, result.message, expected)
      );
    }
    default:
      throw new Skip(`a ${kind.case ?? 'missing'} result`);
  }
}

type Outcome = { kind: 'passed' } | { kind: 'failed'; why: string } | { kind: 'skipped'; why: string };

function runCase(test: IncrementalTest): Outcome {
  const original = test.original;
  if (original.checkOnly) return { kind: 'skipped', why: 'check only (no type checker exported)' };
  if (original.disableMacros)
    return { kind: 'skipped', why: 'macros disabled (the gateway always expands them)' };
  const matcher = original.resultMatcher;
  if (matcher.case === 'typedResult')
    return { kind: 'skipped', why: 'typed result (needs the type checker)' };
  if (matcher.case === 'unknown' || matcher.case === 'anyUnknowns')
    return { kind: 'skipped', why: 'unknowns (partial evaluation)' };
  try {
    const env = celEnv({ registry, ...(original.container === '' ? {} : { namespace: original.container }) });
    const bindings = Object.fromEntries(
      Object.entries(original.bindings).map(([name, bound]) => {
        if (bound.kind.case !== 'value') throw new Skip(`a ${bound.kind.case ?? 'missing'} binding`);
        return [name, input(bound.kind.value)];
      }),
    );
    let result: unknown;
    try {
      result = plan(env, parse(original.expr))(bindings as Parameters<ReturnType<typeof plan>>[0]);
    } catch (error) {
      result = error instanceof Error ? error : new Error(String(error));
    }
    const failedToRun = isCelError(result) || result instanceof Error;
    if (matcher.case === 'evalError' || matcher.case === 'anyEvalErrors')
      return failedToRun ? { kind: 'passed' } : { kind: 'failed', why: 'expected an error' };
    const expected = matcher.case === 'value' ? matcher.value : undefined;
    if (expected === undefined) return { kind: 'skipped', why: 'no expected value' };
    if (failedToRun) return { kind: 'failed', why: `error: ${(result as Error).message.slice(0, 120)}` };
    return same(result, expected, registry) ? { kind: 'passed' } : { kind: 'failed', why: 'another value' };
  } catch (error) {
    if (error instanceof Skip) return { kind: 'skipped', why: error.message };
    throw error;
  }
}

describe('CEL conformance (features policy rules use)', () => {
  const root = getConformanceSuite();
  it.each(SUITES)('%s', (name) => {
    const suite = root.suites.find((candidate) => candidate.name === name);
    expect(suite, name).toBeDefined();
    const counts = { passed: 0, failed: 0, skipped: 0 };
    const notes: string[] = [];
    const failed: string[] = [];
    for (const { name: caseName, test } of casesOf(suite!)) {
      const outcome = runCase(test);
      counts[outcome.kind] += 1;
      if (outcome.kind !== 'passed') notes.push(`  ${outcome.kind} ${caseName}: ${outcome.why}`);
      if (outcome.kind === 'failed') failed.push(caseName);
    }
    console.log(
      `cel-spec ${name}: ${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped\n${notes.join('\n')}`,
    );
    expect(counts).toEqual(EXPECTED[name]);
    expect(failed).toEqual([...KNOWN_FAILURES.keys()].filter((known) => known.startsWith(`${name}/`)));
  });
});
