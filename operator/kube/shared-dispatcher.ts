// One HTTP dispatcher per KubeConfig (issue 26). client-node 2.0.1 builds a new undici Agent for
// every request (KubeConfig.createDispatcher, called from applySecurityAuthentication) and never
// closes it, so every API call opened its own TLS connection (a fresh SecureContext, a handshake and
// an HTTP/2 session) that then idled for undici's keep-alive time: reconciling 100 Workspaces left
// ~300 sessions open and the operator at 558 MiB RSS. Here the Agent is reused for as long as the
// TLS settings it was built from are the same (a rotated CA or client certificate gets a new one),
// like client-go's one transport per config; every call shares one multiplexed connection.
import type { KubeConfig } from '@kubernetes/client-node';

type CreateDispatcher = (cluster: unknown, agentOptions: unknown) => unknown;

const shared = new WeakSet<KubeConfig>();

/** Makes `kubeConfig` hand the same dispatcher to every request while its TLS settings hold. */
export function shareDispatcher(kubeConfig: KubeConfig): void {
  const target = kubeConfig as unknown as { createDispatcher?: CreateDispatcher };
  // A client-node without this (private) method builds its connections some other way: leave it.
  if (shared.has(kubeConfig) || typeof target.createDispatcher !== 'function') return;
  const create = target.createDispatcher.bind(kubeConfig);
  let current: { readonly settings: unknown; readonly dispatcher: unknown } | undefined;
  target.createDispatcher = (cluster, agentOptions) => {
    // The CA, certificate and key are read again (file or inline data) for every request; the
    // cluster entry is copied so a change made to it in place is seen too.
    const settings = [
      typeof cluster === 'object' && cluster !== null ? { ...cluster } : cluster,
      agentOptions,
    ];
    if (current === undefined || !sameSettings(current.settings, settings))
      current = { settings, dispatcher: create(cluster, agentOptions) };
    return current.dispatcher;
  };
  shared.add(kubeConfig);
}

/** Structural equality of the cluster entry and TLS options (certificates and keys are Buffers). */
export function sameSettings(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a instanceof Uint8Array || b instanceof Uint8Array)
    return a instanceof Uint8Array && b instanceof Uint8Array && Buffer.compare(a, b) === 0;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  return keys.every(
    (key) =>
      Object.hasOwn(b, key) &&
      sameSettings((a as Record<string, unknown>)[key], (b as Record<string, unknown>)[key]),
  );
}
