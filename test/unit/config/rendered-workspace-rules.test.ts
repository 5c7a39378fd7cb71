// Workspaces from the Kubernetes API may not reach the gateway's own secrets (issue 20, D19).
import { describe, expect, it } from 'vitest';
import { validateWorkspace } from '../../../gateway/config/config-loader.js';
import { renderedWorkspaceProblems } from '../../../gateway/config/kube/rendered-workspace-rules.js';

function workspace(document: Record<string, unknown>) {
  const result = validateWorkspace({ name: 'acme', ...document });
  if (!result.ok) throw new Error(JSON.stringify(result.problems));
  return result.workspace;
}

describe('renderedWorkspaceProblems', () => {
  it('tenant:rendered-refs-own-secret — env and file references, another workspace’s Secret and stdio sources are refused; its own Secret is fine', () => {
    const own = { kubernetesSecret: { name: 'agw-ws-acme-s0', key: 'cred.docs.credential.abcd1234' } };
    expect(
      renderedWorkspaceProblems(
        workspace({
          mcpSources: [
            {
              name: 'docs',
              transport: 'streamable-http',
              url: 'https://x.example/mcp',
              credential: { type: 'bearer', secret: own },
            },
          ],
        }),
      ),
    ).toEqual([]);
    const problems = renderedWorkspaceProblems(
      workspace({
        mcpSources: [
          {
            name: 'a',
            transport: 'streamable-http',
            url: 'https://x.example/mcp',
            credential: {
              type: 'bearer',
              secret: { file: '/var/run/secrets/kubernetes.io/serviceaccount/token' },
            },
          },
          {
            name: 'b',
            transport: 'streamable-http',
            url: 'https://x.example/mcp',
            credential: {
              type: 'bearer',
              secret: { kubernetesSecret: { name: 'agw-ws-other-s0', key: 'k' } },
            },
          },
          { name: 'c', transport: 'stdio', command: 'sh', env: { TOKEN: { env: 'REDIS_PASSWORD' } } },
        ],
        dataSources: [
          { name: 'pg', type: 'postgres', connectionString: { env: 'DATABASE_URL' }, query: 'SELECT 1' },
        ],
      }),
    );
    expect(problems.map((p) => p.path)).toEqual([
      'mcpSources.0.credential.secret',
      'mcpSources.1.credential.secret',
      'mcpSources.2.transport',
      'mcpSources.2.env.TOKEN',
      'dataSources.0.connectionString',
    ]);
  });

  it('tenant:rendered-refs-own-secret — a workspace’s embeddings.apiKey must be its own rendered Secret too', () => {
    const embeddings = (apiKey: unknown) =>
      renderedWorkspaceProblems(
        workspace({ embeddings: { baseUrl: 'https://models.example/v1', model: 'm', apiKey } }),
      );
    expect(embeddings({ kubernetesSecret: { name: 'agw-ws-acme-s0', key: 'k' } })).toEqual([]);
    expect(embeddings({ env: 'AGW_EMBEDDINGS_API_KEY' }).map((p) => p.path)).toEqual(['embeddings.apiKey']);
    expect(embeddings({ kubernetesSecret: { name: 'agw-ws-other-s0', key: 'k' } })[0]?.message).toContain(
      'agw-ws-acme-s0',
    );
    expect(renderedWorkspaceProblems(workspace({ embeddings: false }))).toEqual([]);
  });
});
