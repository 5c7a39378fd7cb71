// GET /agent/mcp/config: ready-to-paste MCP client configuration for the caller's credential.
// The secret is never echoed: configs reference an environment variable, and the key is named by
// its public id only.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { redactedKey } from '../auth/index.js';
import { requirePrincipal } from '../platform/request-context.js';
import { sendAgentBody } from './agent-reply.js';

export const KEY_ENV_VAR = 'AGENT_GATEWAY_API_KEY';
export const MCP_PROTOCOL_VERSION = '2026-07-28';

function gatewayBaseUrl(request: FastifyRequest): string {
  const configured = request.snapshot.config.server.publicUrl;
  if (configured !== undefined) return configured.replace(/\/+$/, '');
  return `${request.protocol}://${request.host}`;
}

export function clientConfigs(endpoint: string, serverName: string) {
  const header = `Bearer \${${KEY_ENV_VAR}}`;
  return {
    claude_code: {
      command: `claude mcp add --transport http ${serverName} ${endpoint} --header "Authorization: Bearer $${KEY_ENV_VAR}"`,
    },
    cursor: {
      file: '~/.cursor/mcp.json',
      json: {
        mcpServers: {
          [serverName]: { url: endpoint, headers: { Authorization: `Bearer \${env:${KEY_ENV_VAR}}` } },
        },
      },
    },
    vscode: {
      file: '.vscode/mcp.json',
      json: {
        inputs: [
          {
            type: 'promptString',
            id: 'agent-gateway-key',
            description: 'Agent Gateway API key',
            password: true,
          },
        ],
        servers: {
          [serverName]: {
            type: 'http',
            url: endpoint,
            headers: { Authorization: 'Bearer ${input:agent-gateway-key}' },
          },
        },
      },
    },
    claude_desktop: {
      file: 'claude_desktop_config.json',
      json: {
        mcpServers: {
          [serverName]: {
            command: 'npx',
            args: ['-y', 'mcp-remote', endpoint, '--header', `Authorization:${header}`],
            env: { [KEY_ENV_VAR]: '<your API key>' },
          },
        },
      },
    },
    windsurf: {
      file: '~/.codeium/windsurf/mcp_config.json',
      json: { mcpServers: { [serverName]: { serverUrl: endpoint, headers: { Authorization: header } } } },
    },
  };
}

export function registerMcpConfigRoute(app: FastifyInstance): void {
  app.get('/agent/mcp/config', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const endpoint = `${gatewayBaseUrl(request)}/mcp`;
    const serverName = `agent-gateway-${principal.workspace.name}`;
    await Promise.resolve();
    return sendAgentBody(request, reply, {
      server_name: serverName,
      endpoint,
      transport: 'streamable-http',
      protocol_version: MCP_PROTOCOL_VERSION,
      workspace: principal.workspace.name,
      auth: {
        header: 'Authorization',
        scheme: 'Bearer',
        key_id: principal.keyId,
        key_hint: redactedKey(principal.keyId),
        env_var: KEY_ENV_VAR,
      },
      clients: clientConfigs(endpoint, serverName),
    });
  });
}
