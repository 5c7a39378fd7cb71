// GET /agent/mcp/config: ready-to-paste MCP client configuration for the caller's credential.
// For an API key the secret is never echoed: configs reference an environment variable, and the key
// is named by its public id only. For a caller who signed in with OAuth (issue 29) the configs carry
// no credential at all: the client meets the gateway's 401, finds the authorization server through
// the protected-resource metadata and signs in there (the MCP authorization flow), at the resource
// its token was for: its workspace's own endpoint (/w/<name>/mcp), or /mcp for the default one.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { metadataUrl, redactedKey, resourceOf, type Principal } from '../auth/index.js';
import { requirePrincipal } from '../edge/request-context.js';
import { MODERN_VERSION } from '../protocol/index.js';
import { sendAgentBody } from './agent-reply.js';

export const KEY_ENV_VAR = 'AGENT_GATEWAY_API_KEY';
/** The revision a pasted config speaks: the gateway's modern one. */
export const MCP_PROTOCOL_VERSION = MODERN_VERSION;

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

/** One entry per client for an OAuth caller: the URL only; `note` says how that client signs in. */
export function oauthClientConfigs(endpoint: string, serverName: string, issuer: string) {
  const signIn = `sign in at ${issuer} when it asks`;
  return {
    claude_code: {
      command: `claude mcp add --transport http ${serverName} ${endpoint}`,
      note: `No key: Claude Code meets the gateway's 401 and opens your browser to ${signIn} (/mcp in Claude Code starts it again).`,
    },
    cursor: {
      note: `No key: Cursor opens your browser to ${signIn}, and keeps the token itself.`,
      file: '~/.cursor/mcp.json',
      json: { mcpServers: { [serverName]: { url: endpoint } } },
    },
    vscode: {
      note: `No key: VS Code opens your browser to ${signIn}, and keeps the token in its secret storage.`,
      file: '.vscode/mcp.json',
      json: { servers: { [serverName]: { type: 'http', url: endpoint } } },
    },
    claude_desktop: {
      note: `Claude Desktop speaks stdio: mcp-remote bridges it to this endpoint, opens your browser to ${signIn}, and keeps the token under ~/.mcp-auth.`,
      file: 'claude_desktop_config.json',
      json: { mcpServers: { [serverName]: { command: 'npx', args: ['-y', 'mcp-remote', endpoint] } } },
    },
    windsurf: {
      note: `No key: Windsurf opens your browser to ${signIn}.`,
      file: '~/.codeium/windsurf/mcp_config.json',
      json: { mcpServers: { [serverName]: { serverUrl: endpoint } } },
    },
  };
}

/** How an OAuth caller's client authenticates: the MCP authorization flow against its issuer. */
function oauthAuth(request: FastifyRequest, principal: Principal, issuer: string) {
  const resource = principal.oidc?.resource ?? resourceOf(request.snapshot.config);
  return {
    type: 'oauth',
    scheme: 'Bearer',
    issuer,
    ...(resource === undefined ? {} : { resource, resource_metadata: metadataUrl(resource, 'mcp') }),
    ...(principal.oidc?.scopes.length ? { scopes: principal.oidc.scopes } : {}),
    note: `The client signs in at ${issuer} through the MCP authorization flow (a 401 names the protected-resource metadata) and sends the access token it gets; no key or header goes into its config.`,
  };
}

export function registerMcpConfigRoute(app: FastifyInstance): void {
  app.get('/agent/mcp/config', async (request, reply) => {
    const principal = requirePrincipal(request.principal);
    const endpoint = `${gatewayBaseUrl(request)}/mcp`;
    const serverName = `agent-gateway-${principal.workspace.name}`;
    await Promise.resolve();
    const oidc = principal.oidc;
    if (oidc !== undefined) {
      // The resource URI is the endpoint clients reach (RFC 8707, oauth.resource).
      const own = oidc.resource ?? endpoint;
      return sendAgentBody(request, reply, {
        server_name: serverName,
        endpoint: own,
        transport: 'streamable-http',
        protocol_version: MCP_PROTOCOL_VERSION,
        workspace: principal.workspace.name,
        auth: oauthAuth(request, principal, oidc.issuer),
        clients: oauthClientConfigs(own, serverName, oidc.issuer),
      });
    }
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
