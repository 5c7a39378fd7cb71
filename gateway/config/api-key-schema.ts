// An API key of a workspace (D6): its id and hash (never the key), its access, the sources and tools
// it may reach, its lifetime, and its own limits and tool disclosure.
import { z } from 'zod';
import { AccessSchema, ToolDisclosureSchema } from './access-schema.js';
import { LimitsSchema } from './limits-schema.js';
import { patternSchema } from './name-schema.js';
import { PoliciesSchema } from './policy-schema.js';

const isoInstant = z.iso.datetime({
  offset: true,
  error: 'must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z',
});

export const ApiKeySchema = z.strictObject({
  id: z.string().regex(/^[A-Za-z0-9]{10}$/, 'must be the 10-character key id embedded in the key'),
  name: z.string().min(1).max(100).optional(),
  hash: z.string().regex(/^sha256:[0-9a-f]{64}$/, 'must be sha256:<64 lower-case hex digits>'),
  access: AccessSchema.default('read'),
  sources: z.array(patternSchema).max(100).default(['*']),
  tools: z.array(patternSchema).max(100).default(['*']),
  createdAt: isoInstant.optional(),
  expiresAt: isoInstant.optional(),
  revoked: z.boolean().default(false),
  limits: LimitsSchema.optional(),
  /** This key's tool disclosure, replacing its workspace's. */
  toolDisclosure: ToolDisclosureSchema.optional(),
  /** Rules in CEL over this key's tool calls, on top of its workspace's (issue 41). */
  policies: PoliciesSchema.optional(),
});
export type ApiKeyConfig = z.infer<typeof ApiKeySchema>;
