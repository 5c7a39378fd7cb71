// Stamps what every 2026 result must carry (gateway duties 7–8): `resultType`, the gateway's
// `serverInfo` in result `_meta`, and for cacheable results `ttlMs` and `cacheScope`. Legacy-face
// results are left in their 2025 shape.
import { GATEWAY_VERSION } from '../version.js';
import type { Era } from './inbound-ladder.js';
import { META } from '../protocol/index.js';
import type { McpResult } from './mcp-request.js';

export const SERVER_INFO = { name: 'agent-gateway', version: GATEWAY_VERSION } as const;

export function envelope(result: McpResult, era: Era): McpResult {
  if (era === 'legacy') {
    const { resultType: _resultType, ttlMs: _ttl, cacheScope: _scope, ...rest } = result;
    return rest;
  }
  const meta =
    typeof result['_meta'] === 'object' && result['_meta'] !== null
      ? (result['_meta'] as Record<string, unknown>)
      : {};
  return {
    ...result,
    resultType: typeof result['resultType'] === 'string' ? result['resultType'] : 'complete',
    _meta: { ...meta, [META.serverInfo]: SERVER_INFO },
  };
}
