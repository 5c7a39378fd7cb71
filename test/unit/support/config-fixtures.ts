// Config texts shared by several tests.

/** Expands to 9^4 strings through 27 aliases of aliases: what yaml's `maxAliasCount` exists to stop. */
export const ALIAS_BOMB = [
  'version: 1',
  'a: &a [x, x, x, x, x, x, x, x, x]',
  'b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a]',
  'c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b]',
  'd: [*c, *c, *c, *c, *c, *c, *c, *c, *c]',
  '',
].join('\n');
