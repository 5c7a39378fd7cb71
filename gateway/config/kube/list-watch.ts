// The operator's informer (operator/runtime/resource-watcher.ts): client-node's, with its reconnect
// delay capped; gateways use kube-list-watch.ts and never load client-node (issue 26). The stock
// ListWatch doubles the delay on every reconnect of a watch that ended without an error (1 s → 30 s) and never resets it, so after
// an apiserver restart a watch could sit idle for up to 30 s while its list is already fresh — a
// change made in that window arrived half a minute late (seen in the apiserver-outage test).
import { setTimeout as sleep } from 'node:timers/promises';
import {
  ListWatch,
  Watch,
  type KubeConfig,
  type KubernetesObject,
  type ListPromise,
} from '@kubernetes/client-node';

export const MAX_WATCH_RECONNECT_DELAY_MS = 1000;

export function makeListWatch<T extends KubernetesObject>(
  kubeConfig: KubeConfig,
  path: string,
  list: ListPromise<T>,
  labelSelector?: string,
): ListWatch<T> {
  return new ListWatch<T>(path, new Watch(kubeConfig), list, false, labelSelector, undefined, {
    delayFn: (ms) => sleep(Math.min(ms, MAX_WATCH_RECONNECT_DELAY_MS)),
  });
}
