// fetch bound to one undici pool, made on first use: the unguarded authorization-server pool and a
// network guard's checked authorization-server pool both hand out fetch this way.
import type { Agent } from 'undici';
import { undici } from '../platform/undici-lazy.js';

/** fetch through `agent` (made on first use). */
export function fetchThrough(agent: () => Agent): typeof fetch {
  return (input, init) => {
    const undiciFetch = undici().fetch;
    return undiciFetch(input as Parameters<typeof undiciFetch>[0], {
      ...(init as Parameters<typeof undiciFetch>[1]),
      dispatcher: agent(),
    });
  };
}
