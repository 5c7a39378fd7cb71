// Protocol facts of MCP that both the hosted face (mcp/) and the upstream side (upstream/) speak:
// revisions, `_meta` keys, JSON-RPC error codes, methods that name something. Constants only: this
// room imports nothing from the project, so every room above can take it downward.
export {
  MODERN_VERSION,
  SUPPORTED_MODERN_VERSIONS,
  LEGACY_VERSIONS,
  LEGACY_DEFAULT_VERSION,
  isDateVersion,
  isModernClaim,
} from './versions.js';
export { META } from './meta-keys.js';
export { RPC } from './rpc-codes.js';
export { NAMED_METHODS } from './named-methods.js';
export { MCP_APP_MIME_TYPE, UI_EXTENSION, UI_FLAT_LINK_KEYS, UI_SCHEME } from './apps-extension.js';
