// A call reached a `user` source for a principal with no usable connection there (issue 42): none
// yet, revoked, or its refresh was refused. The MCP face answers it with a URL elicitation that sends
// the user to consent; nothing else about the connection (or why it is gone) is said.

export class ConsentRequiredError extends Error {
  constructor(
    readonly workspace: string,
    readonly source: string,
    readonly why: 'none' | 'expired' | 'refused' | 'no-caller',
  ) {
    super(`the caller has no connection to source ${source}`);
    this.name = 'ConsentRequiredError';
  }
}

/** Finds ConsentRequiredError in `error` or its `cause` chain (the SDK wraps what fetch threw). */
export function findConsentRequired(error: unknown): ConsentRequiredError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== null && current !== undefined; depth += 1) {
    if (current instanceof ConsentRequiredError) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}
