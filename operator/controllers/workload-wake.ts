// Scale to zero, the operator's half (issue 40 item 5, D25 and D10). A gateway reports each call to a
// source with spec.run.scaleToZero (and asks to wake it when its Service refused the connection);
// here the report becomes the McpSource's status.lastActiveTime, which the workspace controller
// measures the idle period from (plan/workload-plan.ts): a sleeping workload's next reconcile
// renders its replicas again. With `wait` the answer comes once its Deployment has a Ready pod, or
// after the source's wake time-out. Any operator replica answers (reads from its informer caches,
// one status write); only the leader reconciles. The caller proves itself with the source's own
// token (the bearer its bridge checks), compared in constant time; an unknown source, one without
// scaleToZero and a wrong token get the same 401, so the endpoint tells no one which sources exist.
import { createHash, timingSafeEqual } from 'node:crypto';
import { decoded, type ControllerCaches } from './controller-caches.js';
import type { KubeWriter } from '../kube/kube-writer.js';
import type { WakeAnswer } from '../runtime/wake-server.js';
import { planScaleToZero, tokenSecretName, workloadName } from './plan/workload-plan.js';
import { SOURCE_LABEL, TOKEN_KEY } from './plan/workload-render.js';
import { PLURALS } from './status-reporter.js';

export interface WorkloadWakeDeps {
  readonly caches: ControllerCaches;
  readonly writer: KubeWriter;
  readonly now?: () => number;
  /** Between looks at the Deployment while waiting (default 250 ms). */
  readonly pollMs?: number;
}

/** Reports closer together than this are not written again (the gateways touch every ≤ 30 s). */
const MIN_WRITE_GAP_MS = 5000;

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

export class WorkloadWake {
  private readonly written = new Map<string, number>();
  private readonly now: () => number;

  constructor(private readonly deps: WorkloadWakeDeps) {
    this.now = deps.now ?? Date.now;
  }

  async handle(
    namespace: string,
    source: string,
    bearer: string | undefined,
    wait: boolean,
    signal?: AbortSignal,
  ): Promise<WakeAnswer> {
    const resource = this.deps.caches
      .mcpSources(namespace)
      .find((s) => s.metadata.name === source && s.metadata.deletionTimestamp === undefined);
    const secret = this.deps.caches.secret(namespace, tokenSecretName(source));
    const token =
      secret?.metadata?.labels?.[SOURCE_LABEL] === source ? decoded(secret, TOKEN_KEY) : undefined;
    // Compared even when there is nothing to compare with, so the time says nothing either.
    const matches = timingSafeEqual(digest(bearer ?? ''), digest(token ?? `\0${bearer ?? ''}`));
    const spec = resource?.spec.run?.scaleToZero;
    if (resource === undefined || spec === undefined || token === undefined || token === '' || !matches)
      return { status: 401, ready: false };

    const key = `${namespace}/${source}`;
    const now = this.now();
    const stamps = resource as { readonly metadata: { readonly creationTimestamp?: string | Date } } & {
      readonly status?: { readonly lastActiveTime?: string };
    };
    const asleep = planScaleToZero(spec, stamps, '', now).asleep || this.desired(namespace, source) === 0;
    if (asleep || now - (this.written.get(key) ?? -Infinity) >= MIN_WRITE_GAP_MS) {
      this.written.set(key, now);
      await this.deps.writer.patchStatus(PLURALS.mcpSource, namespace, source, {
        lastActiveTime: new Date(now).toISOString(),
      });
    }
    if (!wait) return { status: 200, ready: this.ready(namespace, source) };
    const deadline = now + (spec.wakeTimeoutSeconds ?? 120) * 1000;
    while (!this.ready(namespace, source)) {
      if (this.now() >= deadline || signal?.aborted === true) return { status: 504, ready: false };
      await new Promise((resolve) => setTimeout(resolve, this.deps.pollMs ?? 250));
    }
    return { status: 200, ready: true };
  }

  private deployment(namespace: string, source: string) {
    return this.deps.caches.workloads?.(namespace).find((ref) => ref.name === workloadName(source));
  }

  private desired(namespace: string, source: string): number | undefined {
    return this.deployment(namespace, source)?.desiredReplicas;
  }

  private ready(namespace: string, source: string): boolean {
    const ref = this.deployment(namespace, source);
    return ref !== undefined && ref.desiredReplicas > 0 && ref.readyReplicas > 0;
  }
}
