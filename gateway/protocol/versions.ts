// The MCP protocol revisions the gateway speaks (docs/mcp-2026.md §1, §6): the modern (handshake-free)
// revision on both the face and the upstream side, and the 2025-era revisions of the legacy face.
export const MODERN_VERSION = '2026-07-28';
export const SUPPORTED_MODERN_VERSIONS: readonly string[] = [MODERN_VERSION];
/** 2025-era revisions served by the stateless legacy face; the first is offered by default. */
export const LEGACY_VERSIONS: readonly string[] = ['2025-11-25', '2025-06-18', '2025-03-26'];
/** A client that sends no MCP-Protocol-Version header on the legacy face is assumed to speak this. */
export const LEGACY_DEFAULT_VERSION = '2025-03-26';

export function isDateVersion(value: unknown): value is string {
  return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}$/.test(value);
}

/** Whether a version string claims the modern (handshake-free) era: any date after 2025-11-25. */
export function isModernClaim(version: string): boolean {
  return isDateVersion(version) && version > '2025-11-25';
}
