// How the rest of the process reaches the SDK that bin/agent-gateway.js may have started: to flush
// and stop it on shutdown. Without telemetry both calls do nothing.
let shutdown: (() => Promise<void>) | undefined;

export function setTelemetryShutdown(stop: () => Promise<void>): void {
  shutdown = stop;
}

/** Whether bin started the SDK (and it has not been shut down). */
export function telemetryStarted(): boolean {
  return shutdown !== undefined;
}

export async function shutdownTelemetry(): Promise<void> {
  const stop = shutdown;
  shutdown = undefined;
  await stop?.().catch(() => undefined);
}
