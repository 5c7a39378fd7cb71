// The generated CRDs on a real kube-apiserver (issue 9): the examples are admitted; invalid
// resources are refused at `kubectl apply` with the CEL or schema message; workspaceRef is
// immutable; `kubectl explain` documents fields; printer columns show.
import { readFile } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { freshNamespace, kubectl, kubectlOk } from '../support/kube-harness.js';

let ns: string;

beforeAll(async () => {
  ns = await freshNamespace('crds');
});

function mcpSource(name: string, spec: Record<string, unknown>): string {
  return JSON.stringify({
    apiVersion: 'agentgateway.dev/v1alpha1',
    kind: 'McpSource',
    metadata: { name },
    spec: { workspaceRef: { name: 'acme' }, transport: 'streamable-http', url: 'http://x.test/mcp', ...spec },
  });
}

async function applyRefused(document: string): Promise<string> {
  const result = await kubectl(['apply', '-n', ns, '-f', '-'], document);
  expect(result.code).not.toBe(0);
  return result.stderr;
}

describe('CRDs on a real apiserver', () => {
  it('crd:examples-admitted — every example in examples/kubernetes passes server-side validation', async () => {
    const out = await kubectlOk(['apply', '-n', ns, '--dry-run=server', '-f', 'examples/kubernetes/']);
    for (const kind of [
      'workspace.agentgateway.dev/acme',
      'apikey.agentgateway.dev/ci-reader',
      'mcpsource.agentgateway.dev/docs',
      'datasource.agentgateway.dev/handbook',
    ])
      expect(out).toContain(kind);
  });

  it('crd:cel-rejects — stdio, a lone keyId, a header credential without its name, a type without its block are refused with the message', async () => {
    expect(await applyRefused(mcpSource('local', { transport: 'stdio' }))).toContain(
      'transport stdio runs a local process and is only available in the embedded gateway',
    );
    expect(
      await applyRefused(
        mcpSource('hdr', { credential: { type: 'header', secretKeyRef: { name: 's', key: 'k' } } }),
      ),
    ).toContain('credential.headerName is required when credential.type is header');
    expect(await applyRefused(mcpSource('ftp', { url: 'ftp://x.test/mcp' }))).toContain('spec.url');
    expect(await applyRefused(mcpSource('Bad_Name', {}))).toMatch(/metadata.name|a lowercase RFC 1123/);
    const key = (spec: Record<string, unknown>) =>
      JSON.stringify({
        apiVersion: 'agentgateway.dev/v1alpha1',
        kind: 'ApiKey',
        metadata: { name: 'k' },
        spec: { workspaceRef: { name: 'acme' }, ...spec },
      });
    expect(await applyRefused(key({ keyId: 'AAAAAAAAAA' }))).toContain('keyId and keyHash go together');
    expect(await applyRefused(key({ access: 'admin' }))).toContain('spec.access');
    expect(await applyRefused(key({ surprise: true }))).toContain('surprise');
    const data = JSON.stringify({
      apiVersion: 'agentgateway.dev/v1alpha1',
      kind: 'DataSource',
      metadata: { name: 'api' },
      spec: { workspaceRef: { name: 'acme' }, type: 'http', files: { path: '/x' } },
    });
    const refused = await applyRefused(data);
    expect(refused).toContain('spec.http must be set exactly when spec.type is http');
    expect(refused).toContain('spec.files must be set exactly when spec.type is files');
  });

  it('crd:policies-bounded — CEL policies on a Workspace and an ApiKey are admitted; a huge rule, too many rules, a multi-line message or an unknown effect are refused by the schema', async () => {
    const rule = {
      name: 'no-prod',
      tools: ['gh__*'],
      effect: 'deny',
      when: "args.project == 'prod'",
      message: 'not prod',
    };
    const workspace = (policies: unknown[]) =>
      JSON.stringify({
        apiVersion: 'agentgateway.dev/v1alpha1',
        kind: 'Workspace',
        metadata: { name: 'governed' },
        spec: { governance: { policies } },
      });
    await kubectlOk(['apply', '-n', ns, '--dry-run=server', '-f', '-'], workspace([rule]));
    await kubectlOk(
      ['apply', '-n', ns, '--dry-run=server', '-f', '-'],
      JSON.stringify({
        apiVersion: 'agentgateway.dev/v1alpha1',
        kind: 'ApiKey',
        metadata: { name: 'governed-key' },
        spec: { workspaceRef: { name: 'acme' }, policies: [rule] },
      }),
    );
    expect(await applyRefused(workspace([{ ...rule, when: `args.a == '${'x'.repeat(1100)}'` }]))).toMatch(
      /spec\.governance\.policies\[0\]\.when: Too long/,
    );
    const many = Array.from({ length: 33 }, (_, index) => ({ ...rule, name: `r${index}` }));
    expect(await applyRefused(workspace(many))).toMatch(/spec\.governance\.policies: Too many/);
    expect(await applyRefused(workspace([{ ...rule, message: 'two\nlines' }]))).toContain(
      'spec.governance.policies[0].message',
    );
    expect(await applyRefused(workspace([{ ...rule, effect: 'audit' }]))).toContain(
      'spec.governance.policies[0].effect',
    );
  });

  it('crd:workspace-ref-immutable — moving a resource to another workspace is refused', async () => {
    await kubectlOk(['apply', '-n', ns, '-f', '-'], mcpSource('moving', {}));
    const moved = JSON.parse(mcpSource('moving', {})) as { spec: { workspaceRef: { name: string } } };
    moved.spec.workspaceRef.name = 'other';
    const result = await kubectl(['apply', '-n', ns, '-f', '-'], JSON.stringify(moved));
    expect(result.code).not.toBe(0);
    expect(result.stderr).toContain('workspaceRef is immutable');
  });

  it('crd:explain-and-columns — kubectl explain documents fields; get shows the printer columns', async () => {
    const explained = await kubectlOk(['explain', 'apikey.spec.rotation']);
    expect(explained).toContain('Raise to issue a new key');
    await kubectlOk(['apply', '-n', ns, '-f', 'examples/kubernetes/apikey.yaml']);
    const table = await kubectlOk(['get', 'apikeys', '-n', ns]);
    expect(table.split('\n')[0]).toMatch(/NAME\s+WORKSPACE\s+ACCESS\s+READY\s+SECRET\s+EXPIRES\s+AGE/);
    const byField = await kubectlOk([
      'get',
      'apikeys',
      '-n',
      ns,
      '--field-selector',
      'spec.workspaceRef.name=acme',
      '-o',
      'name',
    ]);
    expect(byField.trim()).toBe('apikey.agentgateway.dev/ci-reader');
    expect(await readFile('crds/agentgateway.dev_apikeys.yaml', 'utf8')).toContain('selectableFields');
  });

  it('crd:workspace-embeddings — spec.embeddings needs baseUrl and model unless disabled, disabled stands alone, no defaults are written, explain documents it', async () => {
    const workspace = (name: string, embeddings: Record<string, unknown>) =>
      JSON.stringify({
        apiVersion: 'agentgateway.dev/v1alpha1',
        kind: 'Workspace',
        metadata: { name },
        spec: { embeddings },
      });
    expect(await applyRefused(workspace('no-model', { baseUrl: 'https://models.example/v1' }))).toContain(
      'embeddings.baseUrl and embeddings.model are required unless embeddings.disabled is true',
    );
    expect(
      await applyRefused(workspace('both', { disabled: true, model: 'text-embedding-3-small' })),
    ).toContain('embeddings.disabled: true turns embeddings off; leave the other embeddings fields out');
    expect(
      await applyRefused(workspace('big', { baseUrl: 'https://m.example/v1', model: 'm', concurrency: 99 })),
    ).toContain('spec.embeddings.concurrency');
    await kubectlOk(['apply', '-n', ns, '-f', '-'], workspace('off', { disabled: true }));
    await kubectlOk(
      ['apply', '-n', ns, '-f', '-'],
      workspace('own', {
        baseUrl: 'https://models.example/v1',
        model: 'text-embedding-3-small',
        apiKey: { secretKeyRef: { name: 'openai', key: 'api-key' } },
      }),
    );
    const stored = JSON.parse(
      await kubectlOk(['get', 'workspace', 'off', '-n', ns, '-o', 'jsonpath={.spec.embeddings}']),
    ) as unknown;
    expect(stored).toEqual({ disabled: true });
    expect(await kubectlOk(['explain', 'workspace.spec.embeddings.queryTimeoutMs'])).toContain(
      'default 2000',
    );
  });

  it('crd:upstream-oauth-credential — OAuth credentials take client id and secret from Secrets; the CEL rules refuse what the gateway would, tokenExchange and user on a DataSource included, type user with or without a client of its own; -o wide shows the credential type', async () => {
    const client = {
      clientId: { secretKeyRef: { name: 'oauth-client', key: 'id' } },
      clientSecret: { secretKeyRef: { name: 'oauth-client', key: 'secret' } },
    };
    const oauth = (credential: Record<string, unknown>) => ({
      type: 'oauthClientCredentials',
      tokenEndpoint: 'https://login.example.com/token',
      ...client,
      ...credential,
    });
    const refusedWith = async (name: string, credential: Record<string, unknown>) =>
      applyRefused(mcpSource(name, { credential }));
    const { clientSecret: _secret, ...idOnly } = oauth({});
    expect(await refusedWith('no-secret', idOnly)).toContain(
      'credential.clientSecret is required for authMethod client_secret_basic (the default) and client_secret_post',
    );
    const { tokenEndpoint: _endpoint, ...nowhere } = oauth({});
    expect(await refusedWith('nowhere', nowhere)).toContain('give exactly one of tokenEndpoint and issuer');
    expect(await refusedWith('twice', oauth({ issuer: 'https://login.example.com' }))).toContain(
      'give exactly one of tokenEndpoint and issuer',
    );
    expect(await refusedWith('inline', oauth({ clientSecret: 'cs_plain' }))).toContain(
      'spec.credential.clientSecret',
    );
    expect(await refusedWith('static-ref', oauth({ secretKeyRef: { name: 's', key: 'k' } }))).toContain(
      'credential.secretKeyRef is required for types bearer and header, and not used by the OAuth types',
    );
    expect(
      await refusedWith('mixed', {
        type: 'bearer',
        secretKeyRef: { name: 's', key: 'k' },
        tokenEndpoint: 'https://login.example.com/token',
      }),
    ).toContain('are only used by types oauthClientCredentials, tokenExchange and user');
    expect(await refusedWith('audience', oauth({ audience: 'crm' }))).toContain(
      'credential.audience is only used when credential.type is tokenExchange',
    );
    expect(await refusedWith('no-ref', { type: 'bearer' })).toContain(
      'credential.secretKeyRef is required for types bearer and header',
    );
    const data = (name: string, credential: Record<string, unknown>) =>
      JSON.stringify({
        apiVersion: 'agentgateway.dev/v1alpha1',
        kind: 'DataSource',
        metadata: { name },
        spec: {
          workspaceRef: { name: 'acme' },
          type: 'http',
          http: {
            url: 'https://api.example.com/items',
            credential,
            fields: { id: 'id', title: 't', body: ['b'] },
          },
        },
      });
    expect(await applyRefused(data('exchange', oauth({ type: 'tokenExchange' })))).toContain(
      'credential.type tokenExchange and user need a caller and a DataSource syncs with none',
    );
    // Type user (issue 42): no client needed (dynamic registration), no token endpoint, no secret
    // without its id, and never on a DataSource.
    expect(await applyRefused(data('personal', { type: 'user' }))).toContain(
      'credential.type tokenExchange and user need a caller and a DataSource syncs with none',
    );
    expect(
      await refusedWith('user-endpoint', { type: 'user', tokenEndpoint: 'https://login.example.com/token' }),
    ).toContain('credential.tokenEndpoint is not used by type user');
    expect(await refusedWith('user-secret', { type: 'user', clientSecret: client.clientSecret })).toContain(
      'credential.clientSecret needs its clientId (type user)',
    );
    await kubectlOk(
      ['apply', '-n', ns, '-f', '-'],
      mcpSource('personal', { credential: { type: 'user', scopes: ['repo'] } }),
    );
    await kubectlOk(
      ['apply', '-n', ns, '-f', '-'],
      mcpSource('personal-client', {
        credential: { type: 'user', issuer: 'https://login.example.com', clientId: client.clientId },
      }),
    );
    await kubectlOk(
      ['apply', '-n', ns, '-f', '-'],
      mcpSource('exchanging', {
        credential: oauth({ type: 'tokenExchange', audience: 'crm', scopes: ['crm.read', 'openid'] }),
      }),
    );
    await kubectlOk(
      ['apply', '-n', ns, '-f', '-'],
      mcpSource('machine', {
        credential: {
          type: 'oauthClientCredentials',
          issuer: 'https://login.example.com',
          ...client,
          authMethod: 'client_secret_post',
        },
      }),
    );
    await kubectlOk(['apply', '-n', ns, '-f', '-'], data('synced', oauth({})));
    const wide = await kubectlOk(['get', 'mcpsources', 'exchanging', 'machine', '-n', ns, '-o', 'wide']);
    expect(wide.split('\n')[0]).toMatch(/PREFIX\s+CREDENTIAL\s+READY/);
    expect(wide).toMatch(/exchanging\s.*tokenExchange/);
    expect(wide).toMatch(/machine\s.*oauthClientCredentials/);
    expect(await kubectlOk(['get', 'datasources', 'synced', '-n', ns, '-o', 'wide'])).toContain(
      'oauthClientCredentials',
    );
    expect(await kubectlOk(['explain', 'mcpsource.spec.credential.clientSecret'])).toContain(
      'sent only to the token endpoint',
    );
  });

  it('crd:workspace-identity — spec.identity: exactly one of jwks and introspection, https issuers, rules naming a listed issuer, conditions with one operator, prefixes when several introspect; -o wide counts the issuers', async () => {
    const issuer = 'https://login.example.com/realms/acme';
    const workspace = (name: string, identity: Record<string, unknown>) =>
      JSON.stringify({
        apiVersion: 'agentgateway.dev/v1alpha1',
        kind: 'Workspace',
        metadata: { name },
        spec: { identity },
      });
    const rules = [{ name: 'all', issuer }];
    const introspection = (tokenPrefix?: string) => ({
      clientId: 'agw',
      clientSecret: { secretKeyRef: { name: 'idp', key: 'secret' } },
      ...(tokenPrefix === undefined ? {} : { tokenPrefix }),
    });
    const refusals: [Record<string, unknown>, string][] = [
      [{ issuers: [{ issuer }], rules }, 'give exactly one of jwks (JWT access tokens) and introspection'],
      [
        { issuers: [{ issuer, jwks: {}, introspection: introspection() }], rules },
        'give exactly one of jwks (JWT access tokens) and introspection',
      ],
      [
        {
          issuers: [{ issuer: 'http://login.example.com', jwks: {} }],
          rules: [{ name: 'a', issuer: 'http://login.example.com' }],
        },
        'issuer must be an absolute https URL',
      ],
      [
        { issuers: [{ issuer: `${issuer}?x=1`, jwks: {} }], rules: [{ name: 'a', issuer: `${issuer}?x=1` }] },
        'issuer must be an absolute https URL',
      ],
      [
        { issuers: [{ issuer, jwks: { uri: 'ftp://login.example.com/k' } }], rules },
        'jwks.uri must be an absolute https URL',
      ],
      [
        { issuers: [{ issuer, jwks: {} }], rules: [{ name: 'a', issuer: 'https://other.example.com' }] },
        'identity.rules[].issuer must be one of identity.issuers[].issuer',
      ],
      [
        {
          issuers: [
            { issuer, jwks: {} },
            { issuer, jwks: {} },
          ],
          rules,
        },
        'identity.issuers: each issuer may be listed once',
      ],
      [{ issuers: [{ issuer, jwks: {} }], rules: [...rules, ...rules] }, 'each rule name may be used once'],
      [
        { issuers: [{ issuer, jwks: {} }], rules: [{ name: 'a', issuer, when: [{ claim: 'groups' }] }] },
        'a condition has exactly one of equals and contains',
      ],
      [
        {
          issuers: [{ issuer, jwks: {} }],
          rules: [{ name: 'a', issuer, when: [{ claim: 'groups', equals: 'x', contains: 'y' }] }],
        },
        'a condition has exactly one of equals and contains',
      ],
      [
        {
          issuers: [
            { issuer, introspection: introspection('a_') },
            { issuer: 'https://opaque.example.com', introspection: introspection() },
          ],
          rules,
        },
        'tokenPrefix is required when more than one issuer introspects',
      ],
      [
        { issuers: [{ issuer, introspection: { clientId: 'agw', clientSecret: 'inline' } }], rules },
        'spec.identity.issuers[0].introspection.clientSecret',
      ],
    ];
    for (const [index, [identity, message]] of refusals.entries())
      expect(await applyRefused(workspace(`bad-identity-${index}`, identity)), message).toContain(message);

    await kubectlOk(
      ['apply', '-n', ns, '-f', '-'],
      workspace('signed-in', {
        issuers: [
          { issuer, jwks: {}, tokenTypes: ['at+jwt', 'jwt'] },
          { issuer: 'http://127.0.0.1:8443', jwks: { uri: 'http://127.0.0.1:8443/jwks' } },
          { issuer: 'https://opaque.example.com', introspection: introspection() },
        ],
        rules: [
          {
            name: 'payments',
            issuer,
            when: [{ claim: 'groups', contains: 'payments-agents' }],
            access: 'write',
          },
          { name: 'local', issuer: 'http://127.0.0.1:8443' },
        ],
      }),
    );
    const stored = JSON.parse(
      await kubectlOk([
        'get',
        'workspace',
        'signed-in',
        '-n',
        ns,
        '-o',
        'jsonpath={.spec.identity.rules[1]}',
      ]),
    ) as unknown;
    expect(stored).toEqual({ name: 'local', issuer: 'http://127.0.0.1:8443' });
    await kubectlOk([
      'patch',
      'workspace',
      'signed-in',
      '-n',
      ns,
      '--subresource=status',
      '--type=merge',
      '-p',
      '{"status":{"issuers":3}}',
    ]);
    const wide = await kubectlOk(['get', 'workspace', 'signed-in', '-n', ns, '-o', 'wide']);
    expect(wide.split('\n')[0]).toMatch(/SOURCES\s+ISSUERS\s+AGE/);
    expect(wide).toMatch(/signed-in\s.*\s3\s/);
    expect((await kubectlOk(['get', 'workspace', 'signed-in', '-n', ns])).split('\n')[0]).not.toContain(
      'ISSUERS',
    );
    expect(
      await kubectlOk(['explain', 'workspace.spec.identity.issuers.introspection.clientSecret']),
    ).toContain('read from a Secret of this namespace');
  });

  it('crd:workspace-tool-limits — limits are admitted with per defaulted; no rate, a repeated name or an unknown scope is refused at apply', async () => {
    const workspace = (name: string, toolLimits: unknown[]) =>
      JSON.stringify({
        apiVersion: 'agentgateway.dev/v1alpha1',
        kind: 'Workspace',
        metadata: { name },
        spec: { governance: { toolLimits } },
      });
    const email = { name: 'email', tools: ['mail__send_*'], callsPerHour: 10 };
    await kubectlOk(
      ['apply', '-n', ns, '-f', '-'],
      workspace('governed', [email, { name: 'writes', tools: ['*'], per: 'workspace', callsPerDay: 1000 }]),
    );
    const stored = JSON.parse(
      await kubectlOk([
        'get',
        'workspace',
        'governed',
        '-n',
        ns,
        '-o',
        'jsonpath={.spec.governance.toolLimits}',
      ]),
    ) as unknown;
    expect(stored).toEqual([
      { ...email, per: 'subject' },
      { name: 'writes', tools: ['*'], per: 'workspace', callsPerDay: 1000 },
    ]);
    expect(await applyRefused(workspace('no-rate', [{ name: 'a', tools: ['x'] }]))).toContain(
      'governance.toolLimits[]: set callsPerMinute, callsPerHour or callsPerDay',
    );
    expect(await applyRefused(workspace('twice', [email, { ...email, tools: ['y'] }]))).toContain(
      'governance.toolLimits: each limit name may be used once',
    );
    expect(await applyRefused(workspace('scope', [{ ...email, per: 'tenant' }]))).toContain(
      'spec.governance.toolLimits[0].per',
    );
    expect(await kubectlOk(['explain', 'workspace.spec.governance.toolLimits.per'])).toContain(
      'Whom the limit counts per',
    );
  });
});
