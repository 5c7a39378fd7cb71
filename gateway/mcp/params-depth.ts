// Bounds how deeply a request's params may nest (issue 28.4, D23). A caller who sends arguments
// 5,000 levels deep must be told so as a request error before any upstream is contacted; passed on,
// the upstream's parser fails and the failure would count against the source's health. The walk
// stops at the first path past the limit, so it costs what the params cost to read and no more.

/** Levels of nesting allowed inside `params` (objects and arrays; `params` itself is level 1). */
export const MAX_PARAMS_DEPTH = 64;

/** Whether `value` nests more than `limit` levels of objects and arrays. */
export function nestsDeeperThan(value: unknown, limit: number): boolean {
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [current, depth] = stack.pop() as [unknown, number];
    if (typeof current !== 'object' || current === null) continue;
    if (depth > limit) return true;
    const children = Array.isArray(current) ? current : Object.values(current);
    for (const child of children)
      if (typeof child === 'object' && child !== null) stack.push([child, depth + 1]);
  }
  return false;
}
