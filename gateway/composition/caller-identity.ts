// Who is calling (D22) and the record of what they did: the OAuth resource server, whose
// authorization servers are reached through the trusting workspace's reach policy (D19), and the
// audit trail's sink, chosen once at start (docs/audit.md).
import type { GatewayConfig, SecretReader } from '../config/index.js';
import { OAuthAuthenticator } from '../auth/index.js';
import type { AuthorizationServerPool, TenantReach } from '../reach/index.js';
import { createAuditSink, type AuditSink } from '../telemetry/audit-sink.js';

export function openOAuth(
  secrets: SecretReader,
  reach: TenantReach,
  authorizationServers: AuthorizationServerPool,
): OAuthAuthenticator {
  return new OAuthAuthenticator({
    secrets,
    fetchFor: (workspace) => {
      const guard = reach.guard(workspace);
      return {
        key: guard === undefined ? '' : `${guard.scope.namespace}/${guard.scope.workspace}`,
        fetch: authorizationServers.fetchFor(guard),
      };
    },
  });
}

/** The audit sink of the config in use at start, or none when the audit trail is off. */
export function openAuditSink(config: GatewayConfig): AuditSink | undefined {
  const auditSettings = config.telemetry.audit;
  return auditSettings.enabled ? createAuditSink(auditSettings) : undefined;
}
