// Credentials that look real to a scanner and to the gateway's masking (issue 41 part 5), built at
// run time so no secret scanner flags this repository. None of them grants anything.
import { generateKey } from '../../gateway/auth/index.js';
import type { SecretKind } from '../../gateway/governance/index.js';

const b64url = (text: string) => Buffer.from(text).toString('base64url');

/** One sample per kind, as it would appear in a tool's output or a document. */
export function fakeCredentials(): Record<SecretKind, string> {
  const pem = [
    '-----BEGIN RSA PRIVATE KEY-----',
    ...Array.from({ length: 6 }, (_, i) => `MIIEow${'IBAAKCAQEA'.repeat(6)}${i}`),
    '-----END RSA PRIVATE KEY-----',
  ].join('\n');
  return {
    private_key: pem,
    aws_access_key_id: ['AKIA', 'IOSFODNN7', 'EXAMPLE'].join(''),
    aws_secret_access_key: `aws_secret_access_key = ${['wJalrXUtnFEMI', 'K7MDENG', 'bPxRfiCYEXAMPLEKEY'].join('/')}`,
    github_token: ['ghp', '_', 'R4nd0mL00k1ngT0k3n'.repeat(2)].join(''),
    gitlab_token: ['glpat', '-', 'xY9z', 'Qw8vUt7sRq6pLm5n'].join(''),
    slack_token: ['xoxb', '-', '123456789012-1234567890123-', 'AbCdEfGhIjKlMnOpQrStUvWx'].join(''),
    stripe_key: ['sk', '_live_', '51HxYzAbCdEfGhIjKlMnOpQr'].join(''),
    google_api_key: ['AIza', 'SyD-', 'abcdefghijklmnopqrstuvwxyz01234'].join(''),
    agw_api_key: generateKey().key,
    jwt: [
      b64url('{"alg":"HS256","typ":"JWT"}'),
      b64url('{"sub":"1234567890","name":"Jane","iat":1516239022}'),
      'SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c',
    ].join('.'),
    bearer_token: `Authorization: Bearer ${['opaque', 'Tok3n', 'Value', '0123456789abcdef'].join('')}`,
  };
}

/** The part of a sample that is the secret itself (what must never reach the caller). */
export function secretPart(kind: SecretKind, sample: string): string {
  if (kind === 'aws_secret_access_key') return sample.split('= ')[1] as string;
  if (kind === 'bearer_token') return sample.split('Bearer ')[1] as string;
  if (kind === 'private_key') return sample.split('\n')[1] as string;
  return sample;
}
