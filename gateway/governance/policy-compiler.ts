// Compiles a list of CEL policies (issue 41 part 3, DESIGN D26) once per config version: each list
// is a frozen array of the loaded config, so the compiled form is kept by its identity (a WeakMap)
// and goes away with the config. A rule is parsed and checked statically as the config contract
// did (config/policy-expression.ts), then planned by @bufbuild/cel with one addition: every
// comprehension first asks `agw.step()`, which counts iterations against the list's budget for one
// call and stops the loop when it is spent; the call is then refused (fail closed). The library has
// no cost limit of its own, and a comprehension's body cannot read `args`, so this bounds a call's
// work by the budget and the size of its elements.
import { celEnv, celFunc, CelScalar, isCelError, parse, plan } from '@bufbuild/cel';
import { checkPolicyExpression, type PolicyConfig } from '../config/index.js';

/** Comprehension iterations one call may spend in one list of rules (all its rules together). */
export const POLICY_STEP_BUDGET = 10_000;

const STEP = 'agw.step';

/** What a rule's condition came to for one call: an error is anything but true or false. */
export type RuleOutcome = boolean | 'error';

export interface CompiledPolicy {
  readonly config: PolicyConfig;
  readonly evaluate: (bindings: PolicyBindings) => RuleOutcome;
}

export interface PolicyBindings {
  readonly principal: Readonly<Record<string, unknown>>;
  readonly tool: Readonly<Record<string, unknown>>;
  readonly args: Readonly<Record<string, unknown>>;
}

export interface CompiledPolicies {
  readonly policies: readonly CompiledPolicy[];
  /** Starts one call's evaluation: the iteration budget is full again. */
  readonly begin: () => void;
}

const cache = new WeakMap<readonly PolicyConfig[], CompiledPolicies>();

export function compiledPolicies(list: readonly PolicyConfig[]): CompiledPolicies {
  let compiled = cache.get(list);
  if (compiled === undefined) {
    compiled = compile(list);
    cache.set(list, compiled);
  }
  return compiled;
}

function compile(list: readonly PolicyConfig[]): CompiledPolicies {
  const meter = { steps: 0, spent: false };
  const step = celFunc(STEP, [], CelScalar.BOOL, () => {
    meter.steps += 1;
    if (meter.steps <= POLICY_STEP_BUDGET) return true;
    meter.spent = true;
    return false;
  });
  const env = celEnv({ funcs: [step] });
  const policies = list.map((config): CompiledPolicy => {
    const run = planned(env, config.when);
    return {
      config,
      evaluate: (bindings) => {
        if (run === undefined || meter.spent) return 'error';
        let result: unknown;
        try {
          result = run(bindings as unknown as Parameters<typeof run>[0]);
        } catch {
          return 'error';
        }
        if (meter.spent || isCelError(result) || typeof result !== 'boolean') return 'error';
        return result;
      },
    };
  });
  return {
    policies,
    begin: () => {
      meter.steps = 0;
      meter.spent = false;
    },
  };
}

type Planned = ReturnType<typeof plan>;

/** The planned rule, or undefined when it does not compile (the config contract refuses such a
 * rule, so this is a guard: an uncompiled rule only ever answers 'error', which denies). */
function planned(env: ReturnType<typeof celEnv>, text: string): Planned | undefined {
  const checked = checkPolicyExpression(text);
  if (!checked.ok) return undefined;
  try {
    const parsed = parse(text);
    meterComprehensions(parsed.expr, nextId(parsed.expr));
    return plan(env, parsed);
  } catch {
    return undefined;
  }
}

type Expr = ReturnType<typeof parse>['expr'];

/** Rewrites every comprehension's loop condition `c` into `agw.step() && c`. */
function meterComprehensions(node: Expr | undefined, next: () => bigint): void {
  if (node === undefined) return;
  const kind = node.exprKind;
  switch (kind.case) {
    case 'selectExpr':
      meterComprehensions(kind.value.operand, next);
      return;
    case 'callExpr':
      meterComprehensions(kind.value.target, next);
      for (const arg of kind.value.args) meterComprehensions(arg, next);
      return;
    case 'listExpr':
      for (const element of kind.value.elements) meterComprehensions(element, next);
      return;
    case 'structExpr':
      for (const entry of kind.value.entries) {
        if (entry.keyKind.case === 'mapKey') meterComprehensions(entry.keyKind.value, next);
        meterComprehensions(entry.value, next);
      }
      return;
    case 'comprehensionExpr': {
      const comprehension = kind.value;
      for (const part of [
        comprehension.iterRange,
        comprehension.accuInit,
        comprehension.loopStep,
        comprehension.result,
      ])
        meterComprehensions(part, next);
      const condition = comprehension.loopCondition;
      if (condition !== undefined)
        comprehension.loopCondition = call(next(), '_&&_', [call(next(), STEP, []), condition]);
      return;
    }
    default:
      return;
  }
}

function call(id: bigint, name: string, args: Expr[]): Expr {
  return {
    $typeName: 'cel.expr.Expr',
    id,
    exprKind: { case: 'callExpr', value: { $typeName: 'cel.expr.Expr.Call', function: name, args } },
  };
}

/** Fresh node ids above every id of the tree. */
function nextId(root: Expr): () => bigint {
  let max = 0n;
  const visit = (value: unknown): void => {
    if (typeof value !== 'object' || value === null) return;
    const record = value as Record<string, unknown>;
    if (record['$typeName'] === 'cel.expr.Expr' && typeof record['id'] === 'bigint' && record['id'] > max)
      max = record['id'];
    for (const child of Object.values(record)) visit(child);
  };
  visit(root);
  return () => (max += 1n);
}
