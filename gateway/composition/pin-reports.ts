// Pinning reports to the operator (issue 41), in the cluster shape: each new pinning verdict of a
// source (tools held or served unapproved, or all approved again) is posted to the operator's
// `POST /pins/<namespace>/<source>`, which writes the McpSource's status.pinning and an Event. The
// gateway proves itself with its projected ServiceAccount token (re-read at every send: the kubelet
// rotates it); it stays read-only on the Kubernetes API. Every verdict is sent again every
// `resendMs`, so an operator that restarted or missed one catches up. Failures are logged, retried
// with the next resend, and never touch a request.
import { readFile } from 'node:fs/promises';
import type { ConfigSource } from '../config/index.js';
import { pinReport, type PinVerdict, type ToolCatalog } from '../discovery/index.js';
import type { Logger } from '../telemetry/logger.js';

export interface PinReportTarget {
  /** The operator's origin, e.g. http://agw-operator-wake.agw-system.svc.cluster.local:8083. */
  readonly url: string;
  /** The projected ServiceAccount token (audience agent-gateway-operator). */
  readonly tokenFile: string;
}

const RESEND_MS = 5 * 60_000;
const SEND_TIMEOUT_MS = 10_000;

export function reportPins(
  parts: { config: ConfigSource; catalog: ToolCatalog; logger: Logger },
  target: PinReportTarget,
  resendMs = RESEND_MS,
): () => void {
  const { config, catalog, logger } = parts;
  const namespaceOf = (workspace: string) =>
    config.current().config.workspaces.find((w) => w.name === workspace)?.namespace;
  const send = async (workspace: string, source: string, verdict: PinVerdict) => {
    const namespace = namespaceOf(workspace);
    if (namespace === undefined) return;
    const token = (await readFile(target.tokenFile, 'utf8')).trim();
    const response = await fetch(new URL(`/pins/${namespace}/${source}`, target.url), {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(pinReport(verdict)),
      signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
    });
    await response.body?.cancel();
    if (response.status !== 202) throw new Error(`the operator answered HTTP ${response.status}`);
  };
  const report = (workspace: string, source: string, verdict: PinVerdict) =>
    void send(workspace, source, verdict).catch((error: unknown) =>
      logger.warn(
        { workspace, source, reason: (error as Error).message },
        'pinning report not delivered; it is sent again later',
      ),
    );
  catalog.pins.onVerdict(report);
  const timer = setInterval(() => {
    for (const { workspace, source, verdict } of catalog.pins.entries())
      if (verdict.mode !== 'off' || verdict.unapproved.length > 0) report(workspace, source, verdict);
  }, resendMs);
  timer.unref();
  return () => clearInterval(timer);
}
