// The static check of a policy's CEL expression (issue 41 part 3, docs/security.md "Policy over
// calls"): what the config contract refuses before a rule is ever evaluated, so a rule that cannot
// compile refuses the config with its path. It parses with @bufbuild/cel and walks the AST: only the
// three variables and the standard functions, known fields of `principal` and `tool`, and a bound
// on cost (nodes, depth, comprehensions, none inside another, none whose body reads `args`), which
// keeps a rule's work linear in the size of the call's arguments. @bufbuild/cel 0.6.1 exports no
// type checker, so the rest of typing is at evaluation, where any error denies (fail closed).
import { celEnv, parse } from '@bufbuild/cel';

/** The bounds of one expression (the CRD's maxLength is MAX_EXPRESSION_LENGTH). */
export const POLICY_BOUNDS = {
  expressionLength: 1024,
  /** Nodes of the parsed AST, macros expanded (`x.all(y, p)` is about six). */
  nodes: 300,
  /** Depth of the AST and of brackets in the text (the parser recurses on both). */
  depth: 32,
  comprehensions: 4,
} as const;

/** The fields a rule may read on `principal` and `tool` (call-policy.ts builds them). */
export const PRINCIPAL_FIELDS = [
  'workspace',
  'kind',
  'subject',
  'keyId',
  'name',
  'access',
  'issuer',
  'scopes',
  'claims',
] as const;
export const TOOL_FIELDS = ['name', 'source', 'upstreamName', 'access', 'annotations'] as const;

const VARIABLES: ReadonlyMap<string, readonly string[] | undefined> = new Map<
  string,
  readonly string[] | undefined
>([
  ['principal', PRINCIPAL_FIELDS],
  ['tool', TOOL_FIELDS],
  ['args', undefined],
]);

/** Type names usable as values (`type(x) == string`). */
const TYPE_NAMES = new Set([
  'bool',
  'bytes',
  'double',
  'dyn',
  'int',
  'list',
  'map',
  'null_type',
  'string',
  'type',
  'uint',
]);

/** Calls the planner implements itself (logic, conditional, index), beside the standard library. */
const SPECIAL_CALLS = new Set(['_&&_', '_||_', '_?_:_', '_[_]', '@not_strictly_false']);

/** Calls whose result is never a bool: a rule made of one of them at its top cannot decide. */
const NOT_BOOL_CALLS = new Set([
  '_+_',
  '_-_',
  '_*_',
  '_/_',
  '_%_',
  '-_',
  'size',
  'int',
  'uint',
  'double',
  'string',
  'bytes',
  'type',
  'timestamp',
  'duration',
]);

const standard = celEnv().funcs;

type Node = ReturnType<typeof parse>['expr'];

interface Scope {
  readonly at: 'top' | 'range' | 'body';
  /** The variables a comprehension binds (its element(s) and accumulator), in its body. */
  readonly bound: readonly string[];
}
const TOP: Scope = { at: 'top', bound: [] };

export type PolicyExpressionCheck =
  | { readonly ok: true; readonly parsed: ReturnType<typeof parse> }
  | { readonly ok: false; readonly problem: string };

/** Parses and checks `text`; the problem names what to change, never more than the rule's text. */
export function checkPolicyExpression(text: string): PolicyExpressionCheck {
  if (text.length > POLICY_BOUNDS.expressionLength)
    return { ok: false, problem: `is longer than ${POLICY_BOUNDS.expressionLength} characters` };
  if (bracketDepth(text) > POLICY_BOUNDS.depth)
    return { ok: false, problem: `nests brackets more than ${POLICY_BOUNDS.depth} deep` };
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(text);
  } catch (error) {
    if (error instanceof RangeError) return { ok: false, problem: 'nests too deeply' };
    const message = error instanceof Error ? error.message.split('\n')[0] : 'unknown';
    return {
      ok: false,
      problem: `does not parse: ${(message ?? '').replace('<input>:', 'at ').slice(0, 300)}`,
    };
  }
  const walk = new Walk();
  const problem = walk.visit(parsed.expr, TOP, 1) ?? walk.bounds() ?? notBool(parsed.expr);
  return problem === undefined ? { ok: true, parsed } : { ok: false, problem };
}

class Walk {
  nodes = 0;
  comprehensions = 0;
  maxDepth = 0;

  bounds(): string | undefined {
    if (this.nodes > POLICY_BOUNDS.nodes)
      return `has more than ${POLICY_BOUNDS.nodes} nodes once parsed (macros expanded)`;
    if (this.maxDepth > POLICY_BOUNDS.depth) return `nests more than ${POLICY_BOUNDS.depth} deep`;
    if (this.comprehensions > POLICY_BOUNDS.comprehensions)
      return `has ${this.comprehensions} comprehensions (all, exists, exists_one, map, filter); at most ${POLICY_BOUNDS.comprehensions}`;
    return undefined;
  }

  /** `scope`: where the node is: at the top, in a comprehension's range, or in its body (with the
   * variables it binds). */
  visit(node: Node | undefined, scope: Scope, depth: number): string | undefined {
    if (node === undefined) return undefined;
    this.nodes += 1;
    this.maxDepth = Math.max(this.maxDepth, depth);
    if (this.nodes > POLICY_BOUNDS.nodes || depth > POLICY_BOUNDS.depth) return undefined;
    const kind = node.exprKind;
    const next = depth + 1;
    switch (kind.case) {
      case 'constExpr':
        return undefined;
      case 'identExpr':
        return this.ident(kind.value.name, scope);
      case 'selectExpr': {
        const operand = kind.value.operand;
        if (operand?.exprKind.case === 'identExpr' && !scope.bound.includes(operand.exprKind.value.name)) {
          const fields = VARIABLES.get(operand.exprKind.value.name);
          if (fields !== undefined && !fields.includes(kind.value.field))
            return `${operand.exprKind.value.name} has no field ${kind.value.field} (it has ${fields.join(', ')})`;
        }
        return this.visit(operand, scope, next);
      }
      case 'callExpr': {
        const name = kind.value.function;
        if (!SPECIAL_CALLS.has(name) && standard.find(name) === undefined)
          return `calls ${name}, which is not a function of the CEL standard library`;
        return this.visitAll([kind.value.target, ...kind.value.args], scope, next);
      }
      case 'listExpr':
        return this.visitAll(kind.value.elements, scope, next);
      case 'structExpr':
        if (kind.value.messageName !== '')
          return `builds a message (${kind.value.messageName}); only maps and lists`;
        return this.visitAll(
          kind.value.entries.flatMap((entry) => [
            entry.keyKind.case === 'mapKey' ? entry.keyKind.value : undefined,
            entry.value,
          ]),
          scope,
          next,
        );
      case 'comprehensionExpr':
        return this.comprehension(kind.value, scope, next);
      default:
        return 'has an expression kind this gateway does not evaluate';
    }
  }

  private visitAll(nodes: readonly (Node | undefined)[], scope: Scope, depth: number) {
    for (const node of nodes) {
      const problem = this.visit(node, scope, depth);
      if (problem !== undefined) return problem;
    }
    return undefined;
  }

  private ident(name: string, scope: Scope): string | undefined {
    if (scope.bound.includes(name)) return undefined;
    if (name === 'args' && scope.at === 'body')
      return 'reads args inside a comprehension (all, exists, exists_one, map, filter); test the element instead, e.g. args.items.all(i, i.size() < 10)';
    if (VARIABLES.has(name) || TYPE_NAMES.has(name)) return undefined;
    return `names ${name}; a rule sees principal, tool and args`;
  }

  private comprehension(
    value: Extract<Node['exprKind'], { case: 'comprehensionExpr' }>['value'],
    scope: Scope,
    depth: number,
  ): string | undefined {
    if (scope.at !== 'top') return 'nests a comprehension inside another (its range included)';
    this.comprehensions += 1;
    // The range is evaluated once, outside; the body once per element, and sees only the element,
    // the accumulator, principal and tool: its cost is then bounded by the element, not by args.
    const inRange = this.visit(value.iterRange, { at: 'range', bound: [] }, depth);
    if (inRange !== undefined) return inRange;
    const bound = [value.iterVar, value.iterVar2, value.accuVar].filter((name) => name !== '');
    return this.visitAll(
      [value.accuInit, value.loopCondition, value.loopStep, value.result],
      { at: 'body', bound },
      depth,
    );
  }
}

/** What top of an expression can never be a bool: a literal of another type, arithmetic, a
 * conversion, a list or map, or a principal/tool field that is not one. */
function notBool(node: Node): string | undefined {
  const kind = node.exprKind;
  const problem = 'is not a condition (it must evaluate to true or false)';
  switch (kind.case) {
    case 'constExpr':
      return kind.value.constantKind.case === 'boolValue' ? undefined : problem;
    case 'listExpr':
    case 'structExpr':
      return problem;
    case 'callExpr':
      return NOT_BOOL_CALLS.has(kind.value.function) ? problem : undefined;
    case 'selectExpr':
      return kind.value.testOnly || kind.value.operand?.exprKind.case !== 'identExpr'
        ? undefined
        : fieldNotBool(kind.value.operand.exprKind.value.name, problem);
    default:
      return undefined;
  }
}

function fieldNotBool(variable: string, problem: string): string | undefined {
  // No field of principal or tool is a bool; args' fields may be.
  return variable === 'principal' || variable === 'tool' ? problem : undefined;
}

/** The deepest run of unclosed brackets, outside string literals (quotes with backslash escapes). */
function bracketDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let quote: string | undefined;
  for (let index = 0; index < text.length; index += 1) {
    const char = text[index];
    if (quote !== undefined) {
      if (char === '\\') index += 1;
      else if (char === quote) quote = undefined;
      continue;
    }
    if (char === '"' || char === "'") quote = char;
    else if (char === '(' || char === '[' || char === '{') deepest = Math.max(deepest, ++depth);
    else if (char === ')' || char === ']' || char === '}') depth -= 1;
  }
  return deepest;
}
