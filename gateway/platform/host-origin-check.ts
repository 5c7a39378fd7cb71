// DNS-rebinding and cross-site protection (MCP transport security; docs/mcp-2026.md duty 2). A
// browser Origin must be listed in `server.allowedOrigins`, except that a gateway bound to loopback
// accepts loopback Origins. The Host header must be listed in `server.allowedHosts` when that is set;
// a loopback-bound gateway with no list accepts only loopback Hosts, so a rebound DNS name is refused.
import type { ServerConfig } from '../config/index.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

function hostnameOf(hostHeader: string): string {
  if (hostHeader.startsWith('[')) return hostHeader.slice(0, hostHeader.indexOf(']') + 1);
  return hostHeader.split(':')[0] ?? '';
}

/** Returns why the request must be refused, or undefined when Host and Origin are acceptable. */
export function hostOriginProblem(
  server: ServerConfig,
  host: string | undefined,
  origin: string | undefined,
): string | undefined {
  const loopbackBind = isLoopbackHost(server.host);
  if (host !== undefined) {
    const hostname = hostnameOf(host);
    if (
      server.allowedHosts.length > 0
        ? !server.allowedHosts.includes(hostname) && !server.allowedHosts.includes(host)
        : loopbackBind && !isLoopbackHost(hostname)
    ) {
      return 'host-not-allowed';
    }
  }
  if (origin !== undefined && !server.allowedOrigins.includes(origin)) {
    let originHost: string | undefined;
    try {
      originHost = new URL(origin).hostname;
    } catch {
      return 'origin-not-allowed';
    }
    if (!(loopbackBind && isLoopbackHost(originHost))) return 'origin-not-allowed';
  }
  return undefined;
}
