// The Kubernetes shape of the config port (D10, D16, D17) and its contract with the operator.
export { KubeConfigSource } from './kube-config-source.js';
export type { KubeConfigSourceOptions, WorkspaceConfigState } from './kube-config-source.js';
export { InformerObjectFeed } from './informer-object-feed.js';
export type { InformerObjectFeedOptions } from './informer-object-feed.js';
export { MemoryObjectFeed } from './rendered-object.js';
export type { ObjectFeed, ObjectFeedHandlers, RenderedObject } from './rendered-object.js';
// No @kubernetes/client-node here (issue 26): the operator takes its KubeConfig from
// load-kube-config.ts directly.
export { loadKubeClientConfig, KubeConfigError } from './kube-client-config.js';
export type { KubeClientConfig } from './kube-client-config.js';
export { assembleWorkspace } from './workspace-assembler.js';
export {
  renderWorkspace,
  credentialDataKey,
  credentialSecretName,
  WorkspaceTooLargeError,
  DEFAULT_PART_BUDGET_BYTES,
  MAX_RENDERED_ITEM_BYTES,
  renderedItemBytes,
} from './workspace-renderer.js';
export type { RenderedPart, RenderedWorkspace, WorkspaceToRender } from './workspace-renderer.js';
export * from './rendered-contract.js';
