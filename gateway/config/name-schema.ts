// The names and name patterns of the config contract (D5): workspace, source and data-source names
// are DNS labels, unique where they meet; keys and sources select by glob patterns over them.
import { z } from 'zod';

/** Lower-case DNS-label names: safe as Kubernetes names and never contain `__`, the separator of
 * namespaced tool names (D5). */
export const NAME = /^[a-z0-9]([a-z0-9-]{0,38}[a-z0-9])?$/;
export const nameSchema = z
  .string()
  .max(40)
  .regex(NAME, 'must be 1-40 lower-case letters, digits or hyphens, not starting or ending with a hyphen');

/** Glob patterns over source names or namespaced tool names; `*` matches any run of characters. */
export const patternSchema = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[A-Za-z0-9_.*/-]+$/, 'may hold letters, digits, _ . - / and *');

/** Reports every repeat of a name among `names` at `<base>.<index>.<field>`. */
export function reportDuplicates(
  names: readonly string[],
  base: readonly (string | number)[],
  field: string,
  what: string,
  ctx: z.RefinementCtx,
): void {
  const seen = new Set<string>();
  names.forEach((name, index) => {
    if (seen.has(name))
      ctx.addIssue({ code: 'custom', path: [...base, index, field], message: `duplicate ${what} ${name}` });
    seen.add(name);
  });
}
