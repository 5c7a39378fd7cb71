// Who sent a report (issue 41): a gateway pod proves itself with its projected ServiceAccount token
// (audience agent-gateway-operator), which the API server reviews (TokenReview). The operator keeps
// no secret of its own for this and the gateways stay read-only on the Kubernetes API (D25).
import { AuthenticationV1Api, type KubeConfig } from '@kubernetes/client-node';

/** The audience gateway tokens for the operator are minted for. */
export const OPERATOR_AUDIENCE = 'agent-gateway-operator';

export interface TokenReviewer {
  /** The user name the API server gives `token` for `audience`, or undefined if it is not valid. */
  review(token: string, audience: string): Promise<string | undefined>;
}

export class ApiTokenReviewer implements TokenReviewer {
  private readonly api: AuthenticationV1Api;

  constructor(kubeConfig: KubeConfig) {
    this.api = kubeConfig.makeApiClient(AuthenticationV1Api);
  }

  async review(token: string, audience: string): Promise<string | undefined> {
    const answer = await this.api.createTokenReview({
      body: {
        apiVersion: 'authentication.k8s.io/v1',
        kind: 'TokenReview',
        spec: { token, audiences: [audience] },
      },
    });
    const status = answer.status;
    if (status?.authenticated !== true || !(status.audiences ?? []).includes(audience)) return undefined;
    return status.user?.username;
  }
}

/** Tokens and the users they stand for (unit tests). */
export class MemoryTokenReviewer implements TokenReviewer {
  reviews = 0;

  constructor(private readonly users: Readonly<Record<string, string>>) {}

  review(token: string): Promise<string | undefined> {
    this.reviews += 1;
    return Promise.resolve(Object.hasOwn(this.users, token) ? this.users[token] : undefined);
  }
}
