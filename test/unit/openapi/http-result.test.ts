// httpToolResult (issue 44): a REST API's HTTP answer as an MCP tool result. JSON as
// structuredContent plus text, text as text, small images as image content, other bytes as a note,
// non-2xx as tool errors with the status and a bounded piece of the body; never a throw.
import { describe, expect, it } from 'vitest';
import type { HttpAnswer } from '../../../gateway/openapi/http-result.js';
import { ERROR_BODY_CHARS, httpToolResult } from '../../../gateway/openapi/http-result.js';

function answer(
  status: number,
  contentType: string | undefined,
  body: string | Buffer,
  truncated = false,
): HttpAnswer {
  return { status, contentType, body: typeof body === 'string' ? Buffer.from(body) : body, truncated };
}
const textOf = (result: Record<string, unknown>): string =>
  (result.content as { type: string; text?: string }[]).map((c) => c.text ?? '').join('');

describe('httpToolResult: successful answers', () => {
  it('openapi:result-json — a JSON object is structuredContent and compact text; arrays and primitives are wrapped as {result}', () => {
    const object = httpToolResult(
      answer(200, 'application/json; charset=utf-8', '{ "id": 1, "name": "Rex" }'),
    );
    expect(object).toEqual({
      content: [{ type: 'text', text: '{"id":1,"name":"Rex"}' }],
      structuredContent: { id: 1, name: 'Rex' },
    });
    expect(object.isError).toBeUndefined();
    const array = httpToolResult(answer(200, 'application/json', '[1,2]'));
    expect(array.structuredContent).toEqual({ result: [1, 2] });
    expect(textOf(array)).toBe('[1,2]');
    expect(httpToolResult(answer(201, 'application/problem+json', '"ok"')).structuredContent).toEqual({
      result: 'ok',
    });
    expect(httpToolResult(answer(200, 'application/vnd.api+json', 'null')).structuredContent).toEqual({
      result: null,
    });
  });

  it('openapi:result-json-bounds — long JSON text is cut with a note; invalid, truncated or too-deep JSON is text only', () => {
    const big = { items: Array.from({ length: 2000 }, (_, i) => ({ i })) };
    const result = httpToolResult(answer(200, 'application/json', JSON.stringify(big)), {
      maxTextChars: 500,
    });
    expect(result.structuredContent).toEqual(big);
    expect(textOf(result)).toMatch(/^\{"items":\[\{"i":0\}/);
    expect(textOf(result)).toMatch(/\n… \(cut at 500 of [\d,]+ characters\)$/);
    const invalid = httpToolResult(answer(200, 'application/json', '{not json'));
    expect(invalid).toEqual({ content: [{ type: 'text', text: '{not json' }] });
    const truncated = httpToolResult(answer(200, 'application/json', '{"a":[1,2,', true));
    expect(truncated.structuredContent).toBeUndefined();
    expect(textOf(truncated)).toBe('{"a":[1,2,\n(the response was cut at the size cap)');
    const deep = `${'['.repeat(10_000)}${']'.repeat(10_000)}`;
    const deepResult = httpToolResult(answer(200, 'application/json', deep), { maxTextChars: 100 });
    expect(deepResult.structuredContent).toBeUndefined();
    expect(textOf(deepResult)).toMatch(/^\[{100}\n… \(cut at 100 of 20,000 characters\)$/);
  });

  it('openapi:result-text — text types are text, decoded with their charset; bad UTF-8 becomes U+FFFD; empty and 204 say no content', () => {
    expect(httpToolResult(answer(200, 'text/plain', 'hello'))).toEqual({
      content: [{ type: 'text', text: 'hello' }],
    });
    expect(textOf(httpToolResult(answer(200, 'application/xml', '<a/>')))).toBe('<a/>');
    expect(
      textOf(
        httpToolResult(answer(200, 'text/plain; charset=iso-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9]))),
      ),
    ).toBe('café');
    expect(textOf(httpToolResult(answer(200, 'text/plain; charset=nonsense', 'ok')))).toBe('ok');
    const bad = Buffer.from([0x61, 0xff, 0xfe, 0x62, 0xc3]);
    expect(textOf(httpToolResult(answer(200, 'text/plain', bad)))).toBe('a\ufffd\ufffdb\ufffd');
    expect(textOf(httpToolResult(answer(200, 'application/json', bad)))).toBe('a\ufffd\ufffdb\ufffd');
    expect(httpToolResult(answer(204, undefined, ''))).toEqual({
      content: [{ type: 'text', text: '(no content) HTTP 204' }],
    });
    expect(textOf(httpToolResult(answer(200, 'application/json', '')))).toBe('(no content) HTTP 200');
    // No content type: valid UTF-8 is text, anything else is bytes.
    expect(textOf(httpToolResult(answer(200, undefined, 'plain')))).toBe('plain');
    expect(textOf(httpToolResult(answer(200, undefined, bad)))).toBe(
      '(binary content: no content type, 5 bytes, not shown)',
    );
    // A cut never splits a surrogate pair.
    const cats = httpToolResult(answer(200, 'text/plain', '🐈🐈🐈'), { maxTextChars: 3 });
    expect(textOf(cats).startsWith('🐈\n… (cut at 2 of 6 characters)')).toBe(true);
    expect(textOf(cats).isWellFormed()).toBe(true);
  });

  it('openapi:result-binary — small images are image content, large or cut ones and other bytes a note with type and size', () => {
    const png = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2]);
    expect(httpToolResult(answer(200, 'image/png', png))).toEqual({
      content: [{ type: 'image', data: png.toString('base64'), mimeType: 'image/png' }],
    });
    const large = Buffer.alloc(1024 * 1024 + 1, 7);
    expect(httpToolResult(answer(200, 'image/jpeg', large))).toEqual({
      content: [{ type: 'text', text: '(image: image/jpeg, 1,048,577 bytes, not shown)' }],
    });
    expect(textOf(httpToolResult(answer(200, 'image/png', png, true)))).toBe(
      '(image: image/png, 11 bytes, cut at the size cap, not shown)',
    );
    const pdf = httpToolResult(
      answer(200, 'application/pdf', Buffer.from('%PDF-1.7 \u0000\u0001 secret bytes')),
    );
    expect(textOf(pdf)).toMatch(/^\(binary content: application\/pdf, \d+ bytes, not shown\)$/);
    expect(JSON.stringify(pdf)).not.toContain('secret');
  });
});

describe('httpToolResult: errors', () => {
  it('openapi:result-error — non-2xx answers are isError with the status and reason, JSON compacted', () => {
    expect(httpToolResult(answer(404, 'application/json', '{ "message": "no such pet" }'))).toEqual({
      content: [{ type: 'text', text: 'HTTP 404 Not Found\n{"message":"no such pet"}' }],
      isError: true,
    });
    expect(httpToolResult(answer(503, undefined, ''))).toEqual({
      content: [{ type: 'text', text: 'HTTP 503 Service Unavailable' }],
      isError: true,
    });
    expect(textOf(httpToolResult(answer(599, 'text/plain', 'odd')))).toBe('HTTP 599\nodd');
    expect(httpToolResult(answer(302, 'text/html', '<a>moved</a>')).isError).toBe(true);
    expect(httpToolResult(answer(199, undefined, '')).isError).toBe(true);
    expect(textOf(httpToolResult(answer(500, 'application/octet-stream', Buffer.alloc(10))))).toBe(
      'HTTP 500 Internal Server Error\n(body: application/octet-stream, 10 bytes, not shown)',
    );
  });

  it('openapi:result-error-bounded — a huge error body shows only its first 2,000 characters; a cut body says so', () => {
    const huge = `${'e'.repeat(ERROR_BODY_CHARS)}SECRET-TAIL${'x'.repeat(1_000_000)}`;
    const text = textOf(httpToolResult(answer(500, 'text/html', huge)));
    expect(
      text.startsWith(`HTTP 500 Internal Server Error\n${'e'.repeat(ERROR_BODY_CHARS)}\n… (cut at 2,000 of`),
    ).toBe(true);
    expect(text).not.toContain('SECRET-TAIL');
    expect(text.length).toBeLessThan(ERROR_BODY_CHARS + 200);
    const hugeJson = JSON.stringify({ error: 'x'.repeat(100_000) });
    expect(textOf(httpToolResult(answer(400, 'application/json', hugeJson))).length).toBeLessThan(
      ERROR_BODY_CHARS + 200,
    );
    expect(textOf(httpToolResult(answer(502, 'text/plain', 'partial', true)))).toBe(
      'HTTP 502 Bad Gateway\npartial\n(the response was cut at the size cap)',
    );
  });

  it('openapi:result-total — no input throws: odd statuses, odd content types, a non-Buffer body', () => {
    const odd: HttpAnswer[] = [
      answer(Number.NaN, 'application/json', '{}'),
      answer(200, ';;;', 'x'),
      answer(200, 'image/', 'x'),
      answer(200, 'x'.repeat(100_000), 'x'),
      {
        status: 200,
        contentType: 'application/json',
        body: 'not a buffer' as unknown as Buffer,
        truncated: false,
      },
    ];
    for (const input of odd) {
      const result = httpToolResult(input, { maxTextChars: -1 });
      expect(Array.isArray(result.content)).toBe(true);
      expect(textOf(result).length).toBeGreaterThan(0);
    }
  });
});
