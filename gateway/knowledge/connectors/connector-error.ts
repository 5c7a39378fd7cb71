// A connector failure whose message is safe to show in /agent/sources and the logs: it names what
// went wrong (an HTTP status, a SQLSTATE, a missing column) and never carries a secret, a connection
// string or retrieved content. Other errors are reported by their name and code only.
export class ConnectorError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConnectorError';
  }
}
