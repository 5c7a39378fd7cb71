export { registerMcpRoute } from './mcp-route.js';
export { createDispatcher } from './dispatcher.js';
export type { Dispatch, DispatcherDeps } from './dispatcher.js';
export { runLadder, LADDER } from './inbound-ladder.js';
export type { InboundHttp, LadderOutcome, Era } from './inbound-ladder.js';
export { McpError, errorMessage, resultMessage } from './jsonrpc.js';
export { MODERN_VERSION, LEGACY_VERSIONS, META, RPC } from './protocol.js';
export { decodeMirroredValue, encodeMirroredValue, mirrors, headerValueFor } from './header-mirror.js';
export { SERVER_INFO } from './result-envelope.js';
