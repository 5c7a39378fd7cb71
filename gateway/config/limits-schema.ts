// Request rates and daily quotas (issue 10) a workspace or an API key may carry.
import { z } from 'zod';

/** Request rates and daily quotas (issue 10), per workspace and per key; absent means unlimited.
 * Counted once across all replicas when shared state is configured. */
export const LimitsSchema = z
  .strictObject({
    requestsPerSecond: z.number().int().min(1).max(1_000_000).optional().describe('Requests per second.'),
    requestsPerMinute: z.number().int().min(1).max(60_000_000).optional().describe('Requests per minute.'),
    toolCallsPerDay: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .optional()
      .describe('MCP tools/call requests per UTC day.'),
    searchesPerDay: z
      .number()
      .int()
      .min(1)
      .max(1_000_000_000)
      .optional()
      .describe('Searches and queries (/agent/search, /agent/query, the search tool) per UTC day.'),
  })
  .describe('Request rates and daily quotas; unset fields are unlimited.');
export type LimitsConfig = z.infer<typeof LimitsSchema>;
