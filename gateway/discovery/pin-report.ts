// What a gateway tells the operator about one source's pinning (issue 41): the tools whose definition
// is not the approved one, so the McpSource's status and an Event show them to `kubectl`. The
// operator parses a report with this schema; nothing in it is secret (tool names, what changed, the
// description the model would see, digests).
import { z } from 'zod';
import { PINNED_FIELDS, type PinVerdict } from './tool-pins.js';

const DIGEST = z.string().regex(/^sha256:[0-9a-f]{64}$/);

export const PinReportSchema = z.strictObject({
  mode: z.enum(['pin', 'warn', 'off']),
  unapproved: z
    .array(
      z.strictObject({
        tool: z.string().min(1).max(128),
        change: z.enum(['new', 'changed']),
        fields: z.array(z.enum(PINNED_FIELDS)).max(PINNED_FIELDS.length).optional(),
        digest: DIGEST,
        approvedDigest: DIGEST.optional(),
        description: z.string().max(1000),
      }),
    )
    .max(200),
});
export type PinReport = z.infer<typeof PinReportSchema>;

/** One unapproved tool as admins read it everywhere (/agent/sources, Events):
 * `echo (changed: description; approve sha256:…)` or `extra (new; approve sha256:…)`. */
export function describeUnapproved(tool: {
  readonly tool: string;
  readonly change: 'new' | 'changed';
  readonly fields?: readonly string[] | undefined;
  readonly digest: string;
}): string {
  const fields = tool.change === 'changed' && tool.fields !== undefined ? `: ${tool.fields.join(', ')}` : '';
  return `${tool.tool} (${tool.change}${fields}; approve ${tool.digest})`;
}

/** The report of a verdict (at most 200 tools: what a status can show). */
export function pinReport(verdict: PinVerdict): PinReport {
  return {
    mode: verdict.mode,
    unapproved: verdict.unapproved.slice(0, 200).map((tool) => ({
      tool: tool.tool,
      change: tool.change,
      ...(tool.fields === undefined ? {} : { fields: [...tool.fields] }),
      digest: tool.digest,
      ...(tool.approvedDigest === undefined ? {} : { approvedDigest: tool.approvedDigest }),
      description: tool.description,
    })),
  };
}
