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

/** One entry per client; `note` says where the key comes from, in that client's own terms. */
export function clientConfigs(endpoint: string, serverName: string) {
  const header = `Bearer \${${KEY_ENV_VAR}}`;
  return {
    claude_code: {
      command: `claude mcp add --transport http ${serverName} ${endpoint} --header "Authorization: Bearer $${KEY_ENV_VAR}"`,
      note: `Your shell expands $${KEY_ENV_VAR} when you run the command, so Claude Code stores the key itself; run it again after rotating the key.`,
    },
    cursor: {
      note: `Cursor reads ${KEY_ENV_VAR} from its environment (\${env:…}) each time it connects.`,
      file: '~/.cursor/mcp.json',
      json: {
        mcpServers: {
          [serverName]: { url: endpoint, headers: { Authorization: `Bearer \${env:${KEY_ENV_VAR}}` } },
        },
      },
    },
    vscode: {
      note: 'VS Code prompts for the key the first time it starts the server and keeps it in its secret storage; the file holds no key.',
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
      note: `Claude Desktop speaks stdio: mcp-remote bridges it to this endpoint and expands ${KEY_ENV_VAR} from the env block, where you paste the key (the app does not read your shell environment).`,
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
      note: `Windsurf expands \${env:${KEY_ENV_VAR}} from its environment when it connects.`,
      file: '~/.codeium/windsurf/mcp_config.json',
      json: {
        mcpServers: {
          [serverName]: {
            serverUrl: endpoint,
            headers: { Authorization: `Bearer \${env:${KEY_ENV_VAR}}` },
          },
        },
      },
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
