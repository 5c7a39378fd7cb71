// The MCP client SDK, loaded when an upstream is first connected or one of its errors classified
// (issue 26): a gateway without MCP sources never loads it.
import type * as McpClient from '@modelcontextprotocol/client';
import type * as McpClientStdio from '@modelcontextprotocol/client/stdio';
import type * as McpCore from '@modelcontextprotocol/core';
import { lazyModule } from '../platform/lazy-module.js';

export const mcpClientSdk = lazyModule<typeof McpClient>('@modelcontextprotocol/client');
export const mcpClientStdio = lazyModule<typeof McpClientStdio>('@modelcontextprotocol/client/stdio');
export const mcpCoreSdk = lazyModule<typeof McpCore>('@modelcontextprotocol/core');
