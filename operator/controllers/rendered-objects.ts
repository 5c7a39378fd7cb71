// The objects a workspace is rendered into in the gateway namespace (the contract with the gateways'
// KubeConfigSource, operator/README.md): applied with Server-Side Apply only when their revision or
// part count changed, the parts a smaller revision no longer has deleted after the new ones are
// written, and everything of a workspace that is no longer served deleted.
import {
  PARTS_ANNOTATION,
  REVISION_ANNOTATION,
  WORKSPACE_LABEL,
  WORKSPACE_NAMESPACE_LABEL,
  type RenderedPart,
} from '../../gateway/config/kube/index.js';
import type { KubeWriter } from '../kube/kube-writer.js';
import type { ControllerCaches, RenderedRef } from './controller-caches.js';

export interface RenderedObjectsDeps {
  readonly caches: ControllerCaches;
  readonly writer: KubeWriter;
  readonly gatewayNamespace: string;
}

export class RenderedObjects {
  constructor(private readonly deps: RenderedObjectsDeps) {}

  /** Applies the parts of `revision` that are not already there, then deletes the ones it lacks. */
  async write(
    namespace: string,
    name: string,
    parts: readonly RenderedPart[],
    revision: string,
  ): Promise<void> {
    const existing = this.of(namespace, name);
    for (const part of parts) {
      const current = existing.find((o) => o.kind === part.kind && o.name === part.name);
      if (
        current !== undefined &&
        current.annotations[REVISION_ANNOTATION] === revision &&
        current.annotations[PARTS_ANNOTATION] === part.annotations[PARTS_ANNOTATION]
      )
        continue;
      await this.deps.writer.apply({ ...part, namespace: this.deps.gatewayNamespace });
    }
    const wanted = new Set(parts.map((p) => `${p.kind}/${p.name}`));
    for (const object of existing) {
      if (wanted.has(`${object.kind}/${object.name}`)) continue;
      await this.deps.writer.remove(object.kind, this.deps.gatewayNamespace, object.name);
    }
  }

  /** Deletes every rendered object of the workspace `<namespace>/<name>`. */
  async remove(namespace: string, name: string): Promise<void> {
    for (const object of this.of(namespace, name))
      await this.deps.writer.remove(object.kind, this.deps.gatewayNamespace, object.name);
  }

  /** Deletes rendered objects whose workspace key (`<namespace>/<name>`) is not in `live`. */
  async removeAllBut(
    live: ReadonlySet<string>,
    keyOf: (namespace: string, name: string) => string,
  ): Promise<void> {
    for (const object of this.deps.caches.rendered()) {
      const workspace = object.labels[WORKSPACE_LABEL];
      const namespace = object.labels[WORKSPACE_NAMESPACE_LABEL];
      if (workspace === undefined || namespace === undefined) continue;
      if (!live.has(keyOf(namespace, workspace)))
        await this.deps.writer.remove(object.kind, this.deps.gatewayNamespace, object.name);
    }
  }

  private of(namespace: string, name: string): readonly RenderedRef[] {
    return this.deps.caches
      .rendered()
      .filter((o) => o.labels[WORKSPACE_LABEL] === name && o.labels[WORKSPACE_NAMESPACE_LABEL] === namespace);
  }
}
