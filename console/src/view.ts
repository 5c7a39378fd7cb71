// What every view of the console gets: the signed-in API client, the MCP client, a way to say
// something to screen readers, and a way to open the tool-call form for a tool.
import type { GatewayApi } from './api.js';
import type { McpClient } from './mcp.js';

export interface ViewContext {
  readonly api: GatewayApi;
  readonly mcp: McpClient;
  announce(message: string): void;
  openCall(tool: string): void;
}

export interface View {
  readonly id: string;
  readonly label: string;
  /** Fills the view's panel; called each time the view is opened or refreshed. */
  render(panel: HTMLElement, context: ViewContext): Promise<void>;
}
