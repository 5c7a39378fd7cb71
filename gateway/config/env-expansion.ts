// `${NAME}` in the URL fields of the OAuth setup (issue 29), expanded from the gateway's environment
// when the config file is loaded: `server.publicUrl`, `oauth.resource`, and in each workspace's
// `identity` the issuers' `issuer`, `jwksUri` and `introspection.endpoint` and the rules' `issuer`.
// Nothing else is expanded (secrets have their own references). An unset variable is left in place
// and reported by validation with its path.
type Doc = Record<string, unknown>;

const VARIABLE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

function isObject(value: unknown): value is Doc {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function expandField(
  holder: unknown,
  field: string,
  env: Readonly<Record<string, string | undefined>>,
): void {
  if (!isObject(holder) || typeof holder[field] !== 'string') return;
  holder[field] = holder[field].replace(VARIABLE, (whole, name: string) => env[name] ?? whole);
}

function each(value: unknown): readonly unknown[] {
  return Array.isArray(value) ? value : [];
}

/** Expands the fields above in a parsed config document (a fresh copy; the input is unchanged). */
export function expandOAuthEnv(
  document: unknown,
  env: Readonly<Record<string, string | undefined>>,
): unknown {
  if (!isObject(document)) return document;
  const doc = structuredClone(document);
  expandField(doc['server'], 'publicUrl', env);
  expandField(doc['oauth'], 'resource', env);
  for (const workspace of each(doc['workspaces'])) {
    const identity = isObject(workspace) ? workspace['identity'] : undefined;
    if (!isObject(identity)) continue;
    for (const issuer of each(identity['issuers'])) {
      expandField(issuer, 'issuer', env);
      expandField(issuer, 'jwksUri', env);
      if (isObject(issuer)) expandField(issuer['introspection'], 'endpoint', env);
    }
    for (const rule of each(identity['rules'])) expandField(rule, 'issuer', env);
  }
  return doc;
}
