// Kubernetes Events for what the operator does (issue 20): a key issued, a resource rendered, a
// resource refused and why, so `kubectl describe` tells a cluster admin the story without the
// operator's logs. Events are best effort: one that cannot be written never fails a reconcile.
// Messages are the condition messages, which name fields and never hold secret values.
import { CoreV1Api, type KubeConfig } from '@kubernetes/client-node';
import { randomBytes } from 'node:crypto';
import { GROUP, VERSION } from '../api/v1alpha1/index.js';
import { FIELD_MANAGER } from './kube-writer.js';

export interface EventSubject {
  readonly kind: string;
  readonly namespace: string;
  readonly name: string;
  readonly uid?: string;
}

export type EventType = 'Normal' | 'Warning';

/** The port the controller records through (a twin collects them in unit tests). */
export interface EventRecorder {
  record(subject: EventSubject, type: EventType, reason: string, message: string): Promise<void>;
}

export class ApiEventRecorder implements EventRecorder {
  private readonly core: CoreV1Api;

  constructor(
    kubeConfig: KubeConfig,
    private readonly instance: string,
  ) {
    this.core = kubeConfig.makeApiClient(CoreV1Api);
  }

  async record(subject: EventSubject, type: EventType, reason: string, message: string): Promise<void> {
    const now = new Date();
    await this.core.createNamespacedEvent({
      namespace: subject.namespace,
      body: {
        apiVersion: 'v1',
        kind: 'Event',
        metadata: {
          name: `${subject.name}.${now.getTime().toString(16)}${randomBytes(3).toString('hex')}`,
          namespace: subject.namespace,
        },
        involvedObject: {
          apiVersion: `${GROUP}/${VERSION}`,
          kind: subject.kind,
          name: subject.name,
          namespace: subject.namespace,
          ...(subject.uid === undefined ? {} : { uid: subject.uid }),
        },
        type,
        reason,
        message: message.slice(0, 1024),
        count: 1,
        firstTimestamp: now,
        lastTimestamp: now,
        source: { component: FIELD_MANAGER },
        reportingComponent: FIELD_MANAGER,
        reportingInstance: this.instance,
      },
    });
  }
}

/** Collects events in memory (unit tests, and a recorder that records nothing when unset). */
export class MemoryEventRecorder implements EventRecorder {
  readonly events: { subject: EventSubject; type: EventType; reason: string; message: string }[] = [];

  record(subject: EventSubject, type: EventType, reason: string, message: string): Promise<void> {
    this.events.push({ subject, type, reason, message });
    return Promise.resolve();
  }
}
