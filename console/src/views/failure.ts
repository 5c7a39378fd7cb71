// How a view says that the gateway refused or failed: the gateway's own message and error class as
// text, in an alert the screen reader reads.
import { ApiError } from '../api.js';
import { el } from '../dom.js';

/** A 404 reads "this gateway does not offer it" (an endpoint an older gateway lacks) unless
 * `notOffered` is false: then the gateway's own message is shown, as for any refusal. */
export function failure(what: string, error: unknown, notOffered = true): HTMLElement {
  if (notOffered && error instanceof ApiError && error.status === 404)
    return el('p', { class: 'notice', role: 'status' }, `${what}: this gateway does not offer it.`);
  const message = error instanceof Error ? error.message : String(error);
  const detail =
    error instanceof ApiError && error.code !== undefined
      ? ` (${error.code}, ${error.errorClass ?? 'error'})`
      : '';
  return el('p', { class: 'error', role: 'alert' }, `${what} failed: ${message}${detail}`);
}
