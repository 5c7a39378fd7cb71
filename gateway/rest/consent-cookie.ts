// The cookie that binds a consent to the browser that started it (issue 42): random, HttpOnly, sent
// only to the callback path, SameSite=Lax (the authorization server's redirect back is a top-level
// GET, which Lax allows), Secure when the gateway's public URL is https, gone after ten minutes.
export const CONSENT_COOKIE = 'agw_consent';
const CALLBACK_PATH = '/oauth/upstream';

export function bindingCookie(value: string, callbackUrl: string): string {
  const secure = callbackUrl.startsWith('https:') ? '; Secure' : '';
  return `${CONSENT_COOKIE}=${value}; Path=${CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=600${secure}`;
}

export function clearedCookie(callbackUrl: string): string {
  const secure = callbackUrl.startsWith('https:') ? '; Secure' : '';
  return `${CONSENT_COOKIE}=; Path=${CALLBACK_PATH}; HttpOnly; SameSite=Lax; Max-Age=0${secure}`;
}

/** The binding cookie's value from a Cookie header (the first, if a client sent several). */
export function cookieValue(header: string | string[] | undefined): string | undefined {
  const text = Array.isArray(header) ? header.join('; ') : header;
  if (text === undefined || text.length > 8192) return undefined;
  for (const part of text.split(';')) {
    const [name, ...rest] = part.trim().split('=');
    if (name === CONSENT_COOKIE) {
      const value = rest.join('=');
      return /^[A-Za-z0-9_-]{16,128}$/.test(value) ? value : undefined;
    }
  }
  return undefined;
}
