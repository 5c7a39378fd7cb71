export { ToolCatalog, requiredPermission } from './tool-catalog.js';
export type { CatalogTool, WorkspaceCatalog, ToolCatalogDeps, SourceToolsListener } from './tool-catalog.js';
export { MemoryDiscoveryCache } from './discovery-cache.js';
export type { DiscoveryCache } from './discovery-cache.js';
export { SourceStatusRegistry, UNKNOWN_STATE } from './source-status.js';
export type { SourceState, SourceHealth } from './source-status.js';
export { namespacedToolName, NAMESPACE_SEPARATOR, MAX_TOOL_NAME } from './tool-namer.js';
export { nameProblem, printableName, screenNames } from './tool-name-policy.js';
export type { SkippedTool } from './tool-name-policy.js';
export { SourceListCache } from './source-list-cache.js';
export type { CachedToolList, DiscoveryEntry, ListKind, CachedSourceList } from './discovery-entry.js';
export { assignNames, anyBareNames, CLAIMED_TWICE, RESERVED, NOT_BARE } from './exposed-names.js';
export type { NameAssignment, NameClaim, NameCollision } from './exposed-names.js';
export { toolNames, exposeTools, resolveToolName } from './key-tool-names.js';
export type { ToolTarget } from './key-tool-names.js';
export { catalogFor, isVisible, isCallable } from './visible-tools.js';
export {
  GATEWAY_TOOL_NAMES,
  SEARCH_TOOL,
  GET_DOCUMENT_TOOL,
  FIND_TOOLS,
  CALL_TOOL,
} from './gateway-tool-names.js';
export { PinLedger } from './pin-ledger.js';
export type { PinListener } from './pin-ledger.js';
export { definitionDigest, canonicalJson, PINNED_FIELDS } from './tool-pins.js';
export type { PinVerdict, UnapprovedTool, PinChange, PinnedField } from './tool-pins.js';
export { presentTool } from './tool-overrides.js';
export { describeUnapproved, PinReportSchema, pinReport } from './pin-report.js';
export type { PinReport } from './pin-report.js';
