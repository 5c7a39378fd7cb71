// The gateway's version, reported to upstream servers as client info and by `agent-gateway --version`.
export const GATEWAY_VERSION = '0.1.0';
