// Whether a URI could be an expansion of an RFC 6570 URI template (issue 24: a bare resource URI is
// routed to the unprefixed source whose template it matches). Literal parts must match exactly; each
// expression matches what its operator can expand to: a simple `{x}` no `/`, `?` or `#` (they are
// percent-encoded in its values), `{+x}` anything, and the prefixed operators their own runs.
// Adjacent expressions match as one run of anything, so no two unbounded runs ever meet
// without a literal between them (no catastrophic backtracking); cached per template.
const OPERATOR_RUNS: Record<string, string> = {
  '': '[^/?#]*',
  '+': '[^#]*',
  '#': '(?:#.*)?',
  '.': '(?:\\.[^/?#]*)*',
  '/': '(?:/[^/?#]*)*',
  ';': '(?:;[^/?#]*)*',
  '?': '(?:\\?[^#]*)?',
  '&': '(?:&[^#]*)?',
};

const MAX_TEMPLATE = 2048;
/** RFC 6570 variable-list: names of ALPHA DIGIT _ . or %XX, each with an optional :N or *. */
const VARIABLE_LIST =
  /^(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:[A-Za-z0-9_.]|%[0-9A-Fa-f]{2})*(?::[1-9][0-9]{0,3}|\*)?(?:,(?:[A-Za-z0-9_]|%[0-9A-Fa-f]{2})(?:[A-Za-z0-9_.]|%[0-9A-Fa-f]{2})*(?::[1-9][0-9]{0,3}|\*)?)*$/;
const cache = new Map<string, RegExp>();
const NEVER = /(?!)/;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function templateMatcher(template: string): RegExp {
  const known = cache.get(template);
  if (known !== undefined) return known;
  let pattern = '^';
  let lastWasRun = false;
  let lastRun = '';
  let rest = template.length > MAX_TEMPLATE ? undefined : template;
  while (rest !== undefined && rest !== '') {
    const open = rest.indexOf('{');
    if (open < 0) {
      pattern += escape(rest);
      lastWasRun = false;
      break;
    }
    const close = rest.indexOf('}', open);
    if (close < 0) {
      rest = undefined;
      break;
    }
    const literal = rest.slice(0, open);
    pattern += escape(literal);
    const body = rest.slice(open + 1, close);
    const operator = /^[+#./;?&]/.test(body) ? (body[0] ?? '') : '';
    const run = OPERATOR_RUNS[operator];
    if (run === undefined || !VARIABLE_LIST.test(body.slice(operator.length))) {
      rest = undefined;
      break;
    }
    if (lastWasRun && literal === '') pattern = `${pattern.slice(0, pattern.length - lastRun.length)}.*`;
    else pattern += run;
    lastRun = lastWasRun && literal === '' ? '.*' : run;
    lastWasRun = true;
    rest = rest.slice(close + 1);
  }
  const matcher = rest === undefined ? NEVER : new RegExp(`${pattern}$`, 's');
  if (cache.size >= 1000) cache.clear();
  cache.set(template, matcher);
  return matcher;
}
