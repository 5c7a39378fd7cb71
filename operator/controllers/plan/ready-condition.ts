// The Ready condition every reconciled resource reports (D11: spec errors are terminal, a reason and
// a message, no retry). Its own module so the plan and its parts (embeddings, identity, reach,
// credentials, keys) all import it downward and none of them imports the plan back.
export interface ReadyCondition {
  readonly ready: boolean;
  /** CamelCase and stable: WorkspaceNotFound, SecretNotFound, InvalidSpec, NameConflict, … */
  readonly reason: string;
  /** Names the field at fault; never a secret value. */
  readonly message: string;
}

/** A condition besides Ready (e.g. DocumentAccepted of an OpenAPI McpSource, issue 44). */
export interface ExtraCondition {
  readonly type: string;
  readonly status: 'True' | 'False' | 'Unknown';
  readonly reason: string;
  readonly message: string;
}
