// Lease-based leader election (coordination.k8s.io/v1), so two operator replicas never both write.
// The holder renews every `retryMs`; a candidate takes the Lease over once `renewTime` is older than
// `leaseDurationMs`. Every write carries the resourceVersion it read, so a lost race is a 409 and
// nothing else. A leader that cannot renew within `renewDeadlineMs` stops leading before its Lease
// could be taken over (controller-runtime's defaults: 15 s / 10 s / 2 s).
import { CoordinationV1Api, V1MicroTime, type KubeConfig, type V1Lease } from '@kubernetes/client-node';
import type { Logger } from '../../gateway/telemetry/logger.js';

export interface LeaderElectionOptions {
  readonly kubeConfig: KubeConfig;
  readonly namespace: string;
  readonly name: string;
  readonly identity: string;
  readonly logger: Logger;
  readonly leaseDurationMs?: number;
  readonly renewDeadlineMs?: number;
  readonly retryMs?: number;
  readonly onStartedLeading: () => void;
  readonly onStoppedLeading: () => void;
}

export class LeaderElector {
  private readonly api: CoordinationV1Api;
  private timer: NodeJS.Timeout | undefined;
  private leading = false;
  private lastRenewal = 0;
  private stopped = false;

  constructor(private readonly options: LeaderElectionOptions) {
    this.api = options.kubeConfig.makeApiClient(CoordinationV1Api);
  }

  get isLeader(): boolean {
    return this.leading;
  }

  start(): void {
    void this.tick();
  }

  /** Stops campaigning; a leader gives the Lease up so another replica can take over at once. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer !== undefined) clearTimeout(this.timer);
    if (!this.leading) return;
    this.setLeading(false);
    try {
      const lease = await this.api.readNamespacedLease({
        name: this.options.name,
        namespace: this.options.namespace,
      });
      if (lease.spec?.holderIdentity === this.options.identity) {
        // An empty holder is free to take at once.
        lease.spec.holderIdentity = '';
        await this.api.replaceNamespacedLease({
          name: this.options.name,
          namespace: this.options.namespace,
          body: lease,
        });
      }
    } catch {
      // The Lease simply expires.
    }
  }

  private get durationMs(): number {
    return this.options.leaseDurationMs ?? 15_000;
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    try {
      const held = await this.tryAcquireOrRenew();
      if (held) this.lastRenewal = Date.now();
      this.setLeading(held);
    } catch (error) {
      this.options.logger.warn(
        {
          lease: this.options.name,
          err: (error as { name?: string }).name,
          status: (error as { code?: number }).code,
        },
        'leader election: lease update failed',
      );
      if (this.leading && Date.now() - this.lastRenewal > (this.options.renewDeadlineMs ?? 10_000))
        this.setLeading(false);
    }
    if (this.stopped) return;
    this.timer = setTimeout(() => void this.tick(), this.options.retryMs ?? 2000);
    this.timer.unref();
  }

  private setLeading(leading: boolean): void {
    if (leading === this.leading) return;
    this.leading = leading;
    this.options.logger.info(
      { identity: this.options.identity, leading },
      leading ? 'became leader' : 'stopped leading',
    );
    if (leading) this.options.onStartedLeading();
    else this.options.onStoppedLeading();
  }

  private async tryAcquireOrRenew(): Promise<boolean> {
    const { name, namespace, identity } = this.options;
    const now = new V1MicroTime(Date.now());
    let lease: V1Lease;
    try {
      lease = await this.api.readNamespacedLease({ name, namespace });
    } catch (error) {
      if ((error as { code?: number }).code !== 404) throw error;
      await this.api.createNamespacedLease({
        namespace,
        body: {
          metadata: { name, namespace },
          spec: {
            holderIdentity: identity,
            leaseDurationSeconds: Math.ceil(this.durationMs / 1000),
            acquireTime: now,
            renewTime: now,
            leaseTransitions: 0,
          },
        },
      });
      return true;
    }
    const spec = lease.spec ?? {};
    const holder = spec.holderIdentity;
    const renewed = spec.renewTime === undefined ? 0 : new Date(spec.renewTime).getTime();
    const expired = holder === undefined || holder === '' || renewed + this.durationMs < Date.now();
    if (holder !== identity && !expired) return false;
    lease.spec = {
      ...spec,
      holderIdentity: identity,
      leaseDurationSeconds: Math.ceil(this.durationMs / 1000),
      renewTime: now,
      ...(holder === identity
        ? {}
        : { acquireTime: now, leaseTransitions: (spec.leaseTransitions ?? 0) + 1 }),
    };
    try {
      await this.api.replaceNamespacedLease({ name, namespace, body: lease });
      return true;
    } catch (error) {
      if ((error as { code?: number }).code === 409) return false;
      throw error;
    }
  }
}
