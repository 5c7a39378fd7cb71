// Reads a fetch response body up to a byte bound and no further: what an outside server sends us
// (an embeddings provider, an authorization server's metadata, JWKS or introspection answer) must
// not grow our memory past what we asked for (D23).

/** The body as text, or undefined when it exceeds `maxBytes` (the rest is not read). */
export async function readLimited(response: Response, maxBytes: number): Promise<string | undefined> {
  const declared = Number(response.headers.get('content-length') ?? '0');
  if (declared > maxBytes) {
    await response.body?.cancel().catch(() => undefined);
    return undefined;
  }
  if (response.body === null) return '';
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const parts: string[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => undefined);
      return undefined;
    }
    parts.push(decoder.decode(value, { stream: true }));
  }
  parts.push(decoder.decode());
  return parts.join('');
}

/** The body's bytes up to `maxBytes`, and whether there was more (the rest is not read). */
export async function readBytesLimited(
  response: Response,
  maxBytes: number,
): Promise<{ body: Buffer; truncated: boolean }> {
  if (response.body === null) return { body: Buffer.alloc(0), truncated: false };
  const reader = (response.body as ReadableStream<Uint8Array>).getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { body: Buffer.concat(parts), truncated: false };
    if (total + value.byteLength > maxBytes) {
      parts.push(value.subarray(0, maxBytes - total));
      await reader.cancel().catch(() => undefined);
      return { body: Buffer.concat(parts), truncated: true };
    }
    parts.push(value);
    total += value.byteLength;
  }
}
