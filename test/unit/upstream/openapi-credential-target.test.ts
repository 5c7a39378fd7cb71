// The token an OpenAPI source's OAuth credential asks for (issue 44): for the API's base URL as the
// default RFC 8707 resource — the source's `url`, else the server its document names — never for an
// empty resource. The authorization server is a twin; nothing listens where the API would be, so a
// call stops after its token request.
import { describe, expect, it } from 'vitest';
import { McpSourceSchema, processSecretReader } from '../../../gateway/config/index.js';
import { connectUpstream, UpstreamTokens } from '../../../gateway/upstream/index.js';

const API = 'http://127.0.0.1:9/api/v2';

function document(server: string): string {
  return JSON.stringify({
    openapi: '3.0.3',
    info: { title: 't', version: '1' },
    servers: [{ url: server }],
    paths: { '/ping': { get: { operationId: 'ping', responses: { '200': { description: 'ok' } } } } },
  });
}

/** The `resource` of each token request a call of `ping` makes on a source with `fields`. */
async function resourcesAsked(fields: Record<string, unknown>): Promise<(string | null)[]> {
  const forms: URLSearchParams[] = [];
  const tokens = new UpstreamTokens({
    secrets: processSecretReader({ CID: 'client', CSECRET: 'secret' }),
    authorizationServers: {
      fetchFor: () => (_input, init) => {
        forms.push(new URLSearchParams(init?.body as string));
        return Promise.resolve(Response.json({ access_token: 'tok', token_type: 'Bearer', expires_in: 60 }));
      },
    },
  });
  const source = McpSourceSchema.parse({
    name: 'api',
    transport: 'openapi',
    credential: {
      type: 'oauthClientCredentials',
      tokenEndpoint: 'http://as.example/token',
      clientId: { env: 'CID' },
      clientSecret: { env: 'CSECRET' },
    },
    ...fields,
  });
  const connection = await connectUpstream(
    source,
    { secrets: processSecretReader({}), clientInfo: { name: 't', version: '1' }, tokens },
    undefined,
    'w',
  );
  const signal = AbortSignal.timeout(5000);
  await expect(connection.callTool('ping', {}, { signal, timeoutMs: 5000 })).rejects.toThrow();
  return forms.map((form) => form.get('resource'));
}

describe('the resource an OpenAPI source asks a token for', () => {
  it("openapi:cred-resource-default — the source's url; without one, the document's server; never empty", async () => {
    expect(
      await resourcesAsked({ url: API, openapi: { document: { inline: document('http://other/x') } } }),
    ).toEqual([API]);
    expect(await resourcesAsked({ openapi: { document: { inline: document(API) } } })).toEqual([API]);
  });
});
