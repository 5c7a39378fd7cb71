// Whether a request asks for a task (issue 43): a 2026 client declares the tasks extension
// (SEP-2663) in the request's own client capabilities; a 2025 client sends `params.task`
// (2025-11-25 experimental tasks). Also the per-request client capabilities of a 2026 request.
import { META } from '../protocol/index.js';
import type { McpRequest } from './mcp-request.js';
import { TASKS_EXTENSION } from './upstream-params.js';
import { isRecord } from '../platform/is-record.js';

/** The client declared the tasks extension on this request (2026 per-request capabilities). */
export function declaresTasks(request: McpRequest): boolean {
  if (request.era !== 'modern') return false;
  const extensions = clientCapabilitiesOf(request.params)['extensions'];
  return isRecord(extensions) && isRecord(extensions[TASKS_EXTENSION]);
}

/** This tools/call asks for a task: the 2026 extension declared, or a 2025 `params.task`. */
export function asksForTask(request: McpRequest): boolean {
  return request.era === 'modern' ? declaresTasks(request) : isRecord(request.params['task']);
}

export function clientCapabilitiesOf(params: Record<string, unknown>): Record<string, unknown> {
  const meta = params['_meta'];
  const capabilities =
    typeof meta === 'object' && meta !== null
      ? (meta as Record<string, unknown>)[META.clientCapabilities]
      : undefined;
  return typeof capabilities === 'object' && capabilities !== null
    ? (capabilities as Record<string, unknown>)
    : {};
}
