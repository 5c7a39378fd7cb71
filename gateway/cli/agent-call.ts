// One JSON request of a CLI command to a running gateway's agent endpoints, with the key from
// AGW_API_KEY: the body, or undefined after telling stderr the method, path, status and the
// gateway's own message.
import type { CliIo } from './cli-io.js';

export async function callAgent(io: CliIo, url: string, key: string, path: string, method = 'GET') {
  const response = await fetch(new URL(`${path}${path.includes('?') ? '&' : '?'}response_format=json`, url), {
    method,
    headers: { authorization: `Bearer ${key}` },
  });
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>;
  if (response.status >= 400) {
    const error = body['error'] as { message?: string } | undefined;
    io.err(`${method} ${path}: HTTP ${response.status}${error?.message ? ` (${error.message})` : ''}`);
    return undefined;
  }
  return body;
}
