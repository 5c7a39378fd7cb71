// Sources whose upstream connections belong to one caller: token exchange (per subject, issue 29)
// and per-user connections (per principal, issue 42). Their sessions are pooled per caller, never
// shared through Redis, and a failure to list them as one caller says nothing about the source.
import type { McpSourceConfig } from '../config/index.js';

export function isPerCaller(source: McpSourceConfig): boolean {
  const type = source.credential?.type;
  return type === 'tokenExchange' || type === 'user';
}
