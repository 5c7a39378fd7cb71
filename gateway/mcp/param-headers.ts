// `x-mcp-header` annotations (docs/mcp-2026.md §2.4): for each annotated top-level argument the
// request must carry a matching `Mcp-Param-{Name}` header, and a header without its argument is a
// mismatch too. Checked before anything is forwarded. A 2025-era client need not send the headers,
// but any it does send must mirror the arguments all the same (issue 8.2).
import { mirrors } from './header-mirror.js';

export interface ParamHeader {
  readonly property: string;
  readonly header: string;
}

export function annotatedParams(inputSchema: unknown): ParamHeader[] {
  const properties = (inputSchema as { properties?: unknown } | undefined)?.properties;
  if (typeof properties !== 'object' || properties === null) return [];
  const out: ParamHeader[] = [];
  for (const [property, schema] of Object.entries(properties as Record<string, unknown>)) {
    const header = (schema as Record<string, unknown> | null)?.['x-mcp-header'];
    if (typeof header === 'string' && header !== '') out.push({ property, header });
  }
  return out;
}

/** `required`: every annotated argument needs its header (modern era); `if-present`: only headers
 * that were sent are compared (2025 era). */
export type ParamHeaderRule = 'required' | 'if-present';

/** Returns the name of the first mismatching header, or undefined when every mirror holds. */
export function paramHeaderMismatch(
  params: readonly ParamHeader[],
  args: Record<string, unknown>,
  headers: Readonly<Record<string, string | string[] | undefined>>,
  rule: ParamHeaderRule = 'required',
): string | undefined {
  for (const { property, header } of params) {
    const name = `mcp-param-${header.toLowerCase()}`;
    const raw = headers[name];
    const value = Array.isArray(raw) ? raw[0] : raw;
    const arg = Object.hasOwn(args, property) ? args[property] : undefined;
    if (arg === undefined || arg === null) {
      if (value !== undefined) return `Mcp-Param-${header}`;
      continue;
    }
    if (value === undefined ? rule === 'required' : !mirrors(value, arg)) return `Mcp-Param-${header}`;
  }
  return undefined;
}
