// DNS-rebinding and cross-site protection (MCP transport security; docs/mcp-2026.md duty 2). A
// browser Origin must be listed in `server.allowedOrigins`, except that a gateway bound to loopback
// accepts loopback Origins. The Host header must be listed in `server.allowedHosts` when that is set;
// a loopback-bound gateway with no list accepts only loopback Hosts, so a rebound DNS name is refused.
// Host is parsed strictly (`name[:port]` or `[v6][:port]`): `127.0.0.1:80@evil.com` is not a Host,
// and where a Host restriction applies a request without one is refused (issue 8.1).
import type { ServerConfig } from '../config/index.js';

const LOOPBACK = new Set(['localhost', '127.0.0.1', '::1', '[::1]']);
const HOST_HEADER = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/;

export function isLoopbackHost(hostname: string): boolean {
  return LOOPBACK.has(hostname.toLowerCase()) || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** The host part of a Host header, or undefined when the value is not `host[:port]`. */
export function hostnameOf(hostHeader: string): string | undefined {
  const match = HOST_HEADER.exec(hostHeader);
  return match === null ? undefined : (match[1] as string).toLowerCase();
}

function hostProblem(server: ServerConfig, host: string | undefined): string | undefined {
  const listed = server.allowedHosts.length > 0;
  const loopbackOnly = !listed && isLoopbackHost(server.host);
  if (!listed && !loopbackOnly) return undefined;
  const hostname = host === undefined ? undefined : hostnameOf(host);
  if (host === undefined || hostname === undefined) return 'host-not-allowed';
  if (listed) {
    const whole = host.toLowerCase();
    const allowed = server.allowedHosts.some((entry) => [hostname, whole].includes(entry.toLowerCase()));
    return allowed ? undefined : 'host-not-allowed';
  }
  return isLoopbackHost(hostname) ? undefined : 'host-not-allowed';
}

function originProblem(server: ServerConfig, origin: string | undefined): string | undefined {
  if (origin === undefined || server.allowedOrigins.includes(origin)) return undefined;
  let originHost: string;
  try {
    originHost = new URL(origin).hostname;
  } catch {
    return 'origin-not-allowed';
  }
  return isLoopbackHost(server.host) && isLoopbackHost(originHost) ? undefined : 'origin-not-allowed';
}

/** Returns why the request must be refused, or undefined when Host and Origin are acceptable. */
export function hostOriginProblem(
  server: ServerConfig,
  host: string | undefined,
  origin: string | undefined,
): string | undefined {
  return hostProblem(server, host) ?? originProblem(server, origin);
}
