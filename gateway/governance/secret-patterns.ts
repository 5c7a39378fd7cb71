// The credential shapes the built-in guardrail masks (issue 41 part 5, docs/security.md "Secret
// masking"), each a closed `kind` (the metric's label). Every pattern is linear in the text it
// scans: it starts with a lookbehind that refuses a start inside a run of its own characters, so a
// run is scanned from its first character only, and every repetition is bounded or followed by a
// character its class excludes. PEM blocks are found with indexOf, not a lazy `[\s\S]*?` (which
// scans to the end of the text once per unterminated BEGIN).
import { KEY_PREFIX } from '../auth/index.js';

export const SECRET_KINDS = [
  'private_key',
  'aws_access_key_id',
  'aws_secret_access_key',
  'github_token',
  'gitlab_token',
  'slack_token',
  'stripe_key',
  'google_api_key',
  'agw_api_key',
  'jwt',
  'bearer_token',
] as const;
export type SecretKind = (typeof SECRET_KINDS)[number];

export interface SecretPattern {
  readonly kind: Exclude<SecretKind, 'private_key'>;
  /** Global; group 1, when present, is the part kept before the secret (a key name, `Bearer `). */
  readonly pattern: RegExp;
  /** A substring every match contains: a text without it is not scanned with the pattern. */
  readonly needle: string;
  /** Whether the needle is matched case-insensitively. */
  readonly foldCase?: boolean;
}

const AWS_PREFIXES = 'AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AIPA|ANPA|ANVA|AROA|APKA|ASCA';

/** In order: a shape that another one contains (a JWT after `Bearer `) is masked by the first. */
export const SECRET_PATTERNS: readonly SecretPattern[] = [
  {
    kind: 'aws_access_key_id',
    pattern: new RegExp(`(?<![A-Za-z0-9])(?:${AWS_PREFIXES})[A-Z0-9]{16}(?![A-Za-z0-9])`, 'g'),
    needle: 'A',
  },
  {
    // A 40-character secret access key is only told apart from any base64 text by its name.
    kind: 'aws_secret_access_key',
    pattern:
      /(?<![A-Za-z0-9])((?:aws_?)?secret_?access_?key["']?[ \t]{0,4}[:=][ \t]{0,4}["']?)[A-Za-z0-9/+]{40}(?![A-Za-z0-9/+=])/gi,
    needle: 'secret',
    foldCase: true,
  },
  {
    kind: 'github_token',
    pattern:
      /(?<![A-Za-z0-9_])(?:gh[pousr]_[A-Za-z0-9]{36,251}|github_pat_[A-Za-z0-9_]{22,244})(?![A-Za-z0-9_])/g,
    needle: 'g',
  },
  {
    kind: 'gitlab_token',
    pattern:
      /(?<![A-Za-z0-9_-])gl(?:pat|dt|rt|ptt|cbt|oas|soat|ft|imt|agent)-[A-Za-z0-9_-]{20,255}(?![A-Za-z0-9_-])/g,
    needle: 'gl',
  },
  {
    kind: 'slack_token',
    pattern: /(?<![A-Za-z0-9-])(?:xox[abposr]|xapp)-[A-Za-z0-9-]{10,255}(?![A-Za-z0-9-])/g,
    needle: 'x',
  },
  {
    kind: 'stripe_key',
    pattern: /(?<![A-Za-z0-9_])(?:sk|rk|whsec)_(?:(?:live|test)_)?[A-Za-z0-9]{16,255}(?![A-Za-z0-9_])/g,
    needle: '_',
  },
  {
    kind: 'google_api_key',
    pattern: /(?<![A-Za-z0-9_-])AIza[A-Za-z0-9_-]{35}(?![A-Za-z0-9_-])/g,
    needle: 'AIza',
  },
  {
    kind: 'agw_api_key',
    pattern: new RegExp(`(?<![A-Za-z0-9_])${KEY_PREFIX}[0-9A-Za-z]{10}_[0-9A-Za-z]{49}(?![A-Za-z0-9_])`, 'g'),
    needle: KEY_PREFIX,
  },
  {
    kind: 'jwt',
    pattern: /(?<![A-Za-z0-9_-])eyJ[A-Za-z0-9_-]{4,8192}\.eyJ[A-Za-z0-9_-]{4,65536}\.[A-Za-z0-9_-]{0,8192}/g,
    needle: 'eyJ',
  },
  {
    // The token after `Bearer ` (RFC 6750 b64token), at least 16 characters: prose like "bearer
    // tokens" is left alone.
    kind: 'bearer_token',
    pattern: /(?<![A-Za-z0-9_])(bearer[ \t]{1,4})[A-Za-z0-9\-._~+/]{16,4096}=*/gi,
    needle: 'bearer',
    foldCase: true,
  },
];

/** The text that replaces a masked secret. */
export function maskFor(kind: SecretKind): string {
  return `[masked:${kind}]`;
}

const PEM_BEGIN = '-----BEGIN ';
const PEM_END = '-----END ';
const PRIVATE_KEY_TAIL = 'PRIVATE KEY-----';
/** The longest label between BEGIN and PRIVATE KEY (`ENCRYPTED `, `OPENSSH `, `RSA `…). */
const PEM_LABEL_MAX = 40;
/** The longest body of a block (a 16384-bit RSA key is about 12,600 characters). */
const PEM_BODY_MAX = 32_768;
/** An unterminated block is masked this far (a key cut off by a page or a snippet). */
const PEM_UNTERMINATED_MAX = 16_384;

/** Masks PEM private key blocks (any label: RSA, EC, OPENSSH, ENCRYPTED…), terminated or not; calls
 * `found` once per block. Linear: label checks look a bounded way ahead, the search for an END line
 * only moves forward, and an unterminated block's end is the first blank line within the bound. */
export function maskPrivateKeys(text: string, found: () => void): string {
  let at = text.indexOf(PEM_BEGIN);
  if (at < 0) return text;
  let out = '';
  let copied = 0;
  /** The first END line at or after where it was last looked for (-1: there is none). */
  let nextEnd = -2;
  while (at >= 0) {
    const bodyStart = privateKeyLabelEnd(text, at + PEM_BEGIN.length);
    if (bodyStart === undefined) {
      at = text.indexOf(PEM_BEGIN, at + PEM_BEGIN.length);
      continue;
    }
    if (nextEnd !== -1 && nextEnd < bodyStart) nextEnd = text.indexOf(PEM_END, bodyStart);
    const terminated =
      nextEnd < 0 || nextEnd - bodyStart > PEM_BODY_MAX
        ? undefined
        : privateKeyLabelEnd(text, nextEnd + PEM_END.length);
    const stop = terminated ?? unterminatedEnd(text, bodyStart);
    found();
    out += text.slice(copied, at) + maskFor('private_key');
    copied = stop;
    at = text.indexOf(PEM_BEGIN, stop);
  }
  return out + text.slice(copied);
}

/** Just past `<label>PRIVATE KEY-----` when it starts at `from` (a label of letters and spaces). */
function privateKeyLabelEnd(text: string, from: number): number | undefined {
  const window = text.slice(from, from + PEM_LABEL_MAX + PRIVATE_KEY_TAIL.length);
  const tail = window.indexOf(PRIVATE_KEY_TAIL);
  if (tail < 0 || !/^[A-Z ]*$/.test(window.slice(0, tail))) return undefined;
  return from + tail + PRIVATE_KEY_TAIL.length;
}

/** Where an unterminated block's body ends: at the first blank line, or the bound. */
function unterminatedEnd(text: string, from: number): number {
  const blank = text.slice(from, from + PEM_UNTERMINATED_MAX).indexOf('\n\n');
  return blank < 0 ? Math.min(text.length, from + PEM_UNTERMINATED_MAX) : from + blank;
}
