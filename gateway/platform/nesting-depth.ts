// How deeply a JSON value nests, decided without recursion (issue 28.4, D23): a hostile value
// 5,000 levels deep cannot overflow the stack, and the walk stops at the first path past the limit,
// so it costs what the value costs to read and no more. Used for inbound params and for what a
// guardrail hook answers.

/** Whether `value` nests more than `limit` levels of objects and arrays (`value` is level 1). */
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
