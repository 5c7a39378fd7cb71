// The one way a raw /mcp body becomes text: strict UTF-8 (a malformed sequence is an error, not
// U+FFFD) with a leading byte-order mark dropped. The inbound ladder and the limit hook both read
// the body through it, so a body cannot look like one method to the limiter and another to the
// dispatcher (a BOM once made a tools/call invisible to the tool-call quota).
const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

/** The body as text, or undefined when it is not valid UTF-8. */
export function strictUtf8(body: Uint8Array): string | undefined {
  try {
    return STRICT_UTF8.decode(body);
  } catch {
    return undefined;
  }
}
