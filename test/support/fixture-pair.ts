// The two fixture upstreams most relay tests put behind one gateway: the modern (2026-07-28, v2 SDK)
// server as source `modern` and the legacy sessionful (v1 SDK) one as source `legacy`. pairHarness
// starts them before the file's gateway and closes them after it (see fileHarness).
import {
  startLegacySessionfulServer,
  type RunningLegacySessionfulServer,
} from '../fixtures/upstreams/legacy-sessionful-server.js';
import { startModernServer, type RunningModernServer } from '../fixtures/upstreams/modern-server.js';
import { httpSource } from './gateway-document.js';
import { fileHarness, forwarding, type Harness } from './gateway-harness.js';

export interface FixturePair {
  readonly modern: RunningModernServer;
  readonly legacy: RunningLegacySessionfulServer;
  /** The two as Streamable HTTP sources named `modern` and `legacy`. */
  readonly sources: Record<string, unknown>[];
}

/**
 * The file's gateway (fileHarness) on the fixture pair: the pair starts in beforeAll, then
 * `start(pair)` starts the gateway; afterAll stops the gateway, then the pair. The pair handle reads
 * the running servers, so tests use `upstreams.modern.url` inside their tests.
 */
export function pairHarness(
  start: (pair: FixturePair) => Promise<Harness>,
  startTimeoutMs?: number,
): [Harness, FixturePair] {
  let running: FixturePair | undefined;
  const current = (): FixturePair => {
    if (running === undefined) throw new Error("this file's fixture upstreams are not running");
    return running;
  };
  const h = fileHarness(
    async () => {
      const modern = await startModernServer();
      const legacy = await startLegacySessionfulServer();
      running = {
        modern,
        legacy,
        sources: [httpSource('modern', modern.url), httpSource('legacy', legacy.url)],
      };
      return start(running);
    },
    async () => {
      await running?.modern.close();
      await running?.legacy.close();
    },
    startTimeoutMs,
  );
  return [h, forwarding(current)];
}
