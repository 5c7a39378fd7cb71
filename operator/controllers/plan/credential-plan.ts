// spec.credential of an McpSource, or spec.http.credential of an http DataSource, as the config's
// upstream credential (gateway/config/upstream-credential-schema.ts): every secretKeyRef becomes a
// `kubernetesSecret` reference to the workspace's rendered Secret (its value goes into the
// credentials map), and the OAuth endpoints are put to the tenant reach policy first (D19, issue 29).
import type { SecretRef } from '../../../gateway/config/index.js';
import type { ReachCheck } from './reach-check.js';
import type { ReadyCondition } from './ready-condition.js';
import type { CredentialView, SecretKeyRef } from './resource-views.js';

export type RefMaker = (field: string, ref: SecretKeyRef) => SecretRef | ReadyCondition;

/** What attachCredential needs besides the credential: where it sits in the resource (for
 * messages: spec.credential or spec.http.credential), how a secretKeyRef becomes a reference to
 * the workspace's rendered Secret, and the tenant reach policy for the token endpoint / issuer. */
export interface CredentialContext {
  readonly at: string;
  readonly makeRef: RefMaker;
  readonly reach: ReachCheck | undefined;
}

/** Turns spec.credential into the config's credential (upstream-credential-schema.ts): every
 * secretKeyRef becomes a `kubernetesSecret` reference, and its value an entry of the credentials map. */
export function attachCredential(
  document: Record<string, unknown>,
  credential: CredentialView | undefined,
  context: CredentialContext,
): ReadyCondition | undefined {
  if (credential === undefined) return undefined;
  if (credential.type === 'bearer' || credential.type === 'header') {
    if (credential.secretKeyRef === undefined) return required(`${context.at}.secretKeyRef`);
    const secret = context.makeRef('credential', credential.secretKeyRef);
    if ('ready' in secret) return secret;
    document['credential'] =
      credential.type === 'header'
        ? { type: 'header', name: credential.headerName, secret }
        : { type: 'bearer', secret };
    return undefined;
  }
  return attachOAuthCredential(document, credential, context);
}

/** oauthClientCredentials, tokenExchange and user: the policy decides the endpoints the operator can see
 * before any Secret is read (an issuer's metadata may name another token endpoint; the gateway's
 * network guard decides that one when it fetches). */
function attachOAuthCredential(
  document: Record<string, unknown>,
  credential: CredentialView,
  { at, makeRef, reach }: CredentialContext,
): ReadyCondition | undefined {
  for (const field of ['tokenEndpoint', 'issuer'] as const) {
    const url = credential[field];
    const refused = url === undefined ? undefined : reach?.url(`${at}.${field}`, url);
    if (refused !== undefined) return refused;
  }
  const { clientId, clientSecret, headerName: _name, secretKeyRef: _ref, ...settings } = credential;
  // Type user (issue 42): a client registered dynamically has no id here, a public one no secret.
  const user = credential.type === 'user';
  if (clientId === undefined && !user) return required(`${at}.clientId`);
  if (clientSecret === undefined && !user) return required(`${at}.clientSecret`);
  const id = clientId === undefined ? undefined : makeRef('credential.clientId', clientId.secretKeyRef);
  if (id !== undefined && 'ready' in id) return id;
  const secret =
    clientSecret === undefined ? undefined : makeRef('credential.clientSecret', clientSecret.secretKeyRef);
  if (secret !== undefined && 'ready' in secret) return secret;
  document['credential'] = {
    ...settings,
    ...(id === undefined ? {} : { clientId: id }),
    ...(secret === undefined ? {} : { clientSecret: secret }),
  };
  return undefined;
}

/** The URLs a credential makes the gateway fetch (token endpoint, issuer metadata), whose host
 * names the controller resolves before the plan asks the reach policy about them. */
export function credentialUrls(credential: CredentialView | undefined): string[] {
  if (credential === undefined) return [];
  return [credential.tokenEndpoint, credential.issuer].filter((url) => url !== undefined);
}

function required(field: string): ReadyCondition {
  return { ready: false, reason: 'InvalidSpec', message: `${field}: is required` };
}
