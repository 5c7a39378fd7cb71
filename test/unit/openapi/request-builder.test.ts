// buildRequest (issue 44): an OpenAPI tool call as its HTTP request. The style tables of OpenAPI
// 3.1.1 ("Style Examples", color = "blue" / ["blue","black","brown"] / {R:100,G:200,B:150}) row by
// row, path values that try to leave their segment, header injection and reserved headers, query
// and body encodings, and the bounds. Tools are written by hand here (the catalog is tested apart).
import { describe, expect, it } from 'vitest';
import type {
  OpenApiTool,
  OperationBody,
  OperationParameter,
} from '../../../gateway/openapi/openapi-tool.js';
import {
  buildRequest,
  InvalidToolArguments,
  MAX_URL_CHARS,
} from '../../../gateway/openapi/request-builder.js';

const BASE = 'https://api.example.com/v2';
const STRING = 'blue';
const ARRAY = ['blue', 'black', 'brown'];
const OBJECT = { R: 100, G: 200, B: 150 };

function parameter(
  over: Partial<OperationParameter> & Pick<OperationParameter, 'name' | 'in'>,
): OperationParameter {
  const style = over.style ?? (over.in === 'query' || over.in === 'cookie' ? 'form' : 'simple');
  return {
    required: over.in === 'path',
    style,
    explode: style === 'form',
    allowReserved: false,
    schema: {},
    argument: over.name,
    ...over,
  };
}

function tool(
  pathTemplate: string,
  parameters: OperationParameter[],
  body?: OperationBody,
  method = 'GET',
): OpenApiTool {
  return {
    name: 'op',
    description: '',
    inputSchema: { type: 'object' },
    annotations: {},
    method,
    pathTemplate,
    parameters,
    ...(body === undefined ? {} : { body }),
  };
}

/** The built URL's path after the base path, and its query, for one parameter and value. */
function pathOf(p: OperationParameter, value: unknown, template = '/colors/{color}'): string {
  return buildRequest(BASE, tool(template, [p]), { [p.argument]: value }).url.pathname.slice('/v2'.length);
}
function queryOf(p: OperationParameter, value: unknown): string {
  return buildRequest(BASE, tool('/colors', [p]), { [p.argument]: value }).url.search;
}

function refused(run: () => unknown, message?: RegExp): void {
  let error: unknown;
  try {
    run();
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(InvalidToolArguments);
  if (message !== undefined) expect((error as Error).message).toMatch(message);
}

describe('path styles (the OpenAPI style table)', () => {
  it('openapi:path-styles — simple, label and matrix, exploded or not, for a string, an array and an object', () => {
    const rows: [string, boolean, string, string, string][] = [
      ['matrix', false, ';color=blue', ';color=blue,black,brown', ';color=R,100,G,200,B,150'],
      ['matrix', true, ';color=blue', ';color=blue;color=black;color=brown', ';R=100;G=200;B=150'],
      ['label', false, '.blue', '.blue,black,brown', '.R,100,G,200,B,150'],
      ['label', true, '.blue', '.blue.black.brown', '.R=100.G=200.B=150'],
      ['simple', false, 'blue', 'blue,black,brown', 'R,100,G,200,B,150'],
      ['simple', true, 'blue', 'blue,black,brown', 'R=100,G=200,B=150'],
    ];
    for (const [style, explode, string, array, object] of rows) {
      const p = parameter({ name: 'color', in: 'path', style, explode });
      expect(pathOf(p, STRING), `${style} ${explode}`).toBe(`/colors/${string}`);
      expect(pathOf(p, ARRAY), `${style} ${explode}`).toBe(`/colors/${array}`);
      expect(pathOf(p, OBJECT), `${style} ${explode}`).toBe(`/colors/${object}`);
    }
  });

  it('openapi:path-base — the template is appended to the base path (not resolved), with or without a trailing slash', () => {
    const t = tool('/pets/{petId}', [parameter({ name: 'petId', in: 'path' })]);
    expect(buildRequest('https://api.example.com/v2', t, { petId: 7 }).url.href).toBe(
      'https://api.example.com/v2/pets/7',
    );
    expect(buildRequest('https://api.example.com/v2/', t, { petId: 7 }).url.href).toBe(
      'https://api.example.com/v2/pets/7',
    );
    expect(buildRequest('http://localhost:8080', t, { petId: 'x' }).url.href).toBe(
      'http://localhost:8080/pets/x',
    );
    // Numbers and booleans as JSON writes them.
    expect(buildRequest(BASE, t, { petId: 1.5e21 }).url.pathname).toBe('/v2/pets/1.5e%2B21');
    expect(buildRequest(BASE, t, { petId: false }).url.pathname).toBe('/v2/pets/false');
    // A template with literal text around the expression, and several expressions in one segment.
    const multi = tool('/files/{name}.{ext}', [
      parameter({ name: 'name', in: 'path' }),
      parameter({ name: 'ext', in: 'path' }),
    ]);
    expect(buildRequest(BASE, multi, { name: 'report', ext: 'pdf' }).url.pathname).toBe(
      '/v2/files/report.pdf',
    );
    // A base URL that is not absolute http(s), or carries a query, is the admin's error, not the caller's.
    for (const bad of ['ftp://x/', '/v2', 'https://x/?key=1', 'https://u:p@x/'])
      expect(() => buildRequest(bad, t, { petId: 1 })).toThrow(Error);
  });
});

describe('path parameters cannot leave their segment', () => {
  const p = parameter({ name: 'id', in: 'path' });
  const t = tool('/pets/{id}/toys', [p]);
  const build = (id: unknown) => buildRequest(BASE, t, { id });

  it('openapi:path-encoding — /, ?, #, %, backslash and unicode are percent-encoded; the segment count stays', () => {
    const cases: [string, string][] = [
      ['a/b', 'a%2Fb'],
      ['a?b=1', 'a%3Fb%3D1'],
      ['a#frag', 'a%23frag'],
      ['100%', '100%25'],
      ['%2F', '%252F'],
      ['a\\b', 'a%5Cb'],
      ['%5C', '%255C'],
      ['é', '%C3%A9'],
      ['日本', '%E6%97%A5%E6%9C%AC'],
      ['🐈', '%F0%9F%90%88'],
      ['a b+c', 'a%20b%2Bc'],
      ['~x_y-z.w', '~x_y-z.w'],
    ];
    for (const [value, encoded] of cases) {
      const url = build(value).url;
      expect(url.pathname, value).toBe(`/v2/pets/${encoded}/toys`);
      expect(url.pathname.split('/')).toHaveLength(5);
      expect(url.search).toBe('');
      expect(url.hash).toBe('');
    }
  });

  it('openapi:path-traversal — dot segments in every spelling are refused: ., .., %2e forms, ../, ..\\, unicode dots', () => {
    for (const value of [
      '.',
      '..',
      '../',
      '../admin',
      '..\\admin',
      // Written already encoded: a server that decodes twice would read a dot segment.
      '%2e%2e',
      '%2E',
      '.%2E',
      '..%2F',
      '..%2fadmin',
      '%2e%2e%5c',
      '..%5C',
      '%252e%252e',
      'x/../..',
      '.. ',
      '...',
      '\u2024', // ONE DOT LEADER (NFKC: ".")
      '\u2024\u2024',
      '\u2025', // TWO DOT LEADER (NFKC: "..")
      '\uff0e\uff0e', // FULLWIDTH FULL STOP
      '..\uff0fadmin', // FULLWIDTH SOLIDUS
    ])
      refused(() => build(value), /dot segment/);
    // Values that hold dots but are no dot segment pass, encoded.
    expect(build('.well-known').url.pathname).toBe('/v2/pets/.well-known/toys');
    expect(build('a..b').url.pathname).toBe('/v2/pets/a..b/toys');
    expect(build('v1.2').url.pathname).toBe('/v2/pets/v1.2/toys');
  });

  it('openapi:path-traversal-styles — label and matrix styles and split expressions cannot form a dot segment', () => {
    const label = parameter({ name: 'id', in: 'path', style: 'label' });
    refused(() => buildRequest(BASE, tool('/pets/{id}', [label]), { id: '.' }), /dot segment/);
    refused(() => buildRequest(BASE, tool('/pets/{id}', [label]), { id: '\u2024' }), /dot segment/);
    const a = parameter({ name: 'a', in: 'path' });
    const b = parameter({ name: 'b', in: 'path' });
    refused(() => buildRequest(BASE, tool('/pets/{a}{b}', [a, b]), { a: '.', b: '.' }), /dot segment/);
    // Defence in depth: a URL whose path the parser changed (here a template's own `..`) is refused.
    const id = parameter({ name: 'id', in: 'path' });
    refused(
      () => buildRequest(BASE, tool('/pets/../{id}', [id]), { id: 'x' }),
      /do not fit the path template/,
    );
    // Each value is also checked on its own.
    refused(() => buildRequest(BASE, tool('/pets/{a}x', [a]), { a: '..' }), /dot segment/);
  });

  it('openapi:path-refusals — missing, empty, NUL and control characters, non-primitives and very long values are refused', () => {
    refused(() => buildRequest(BASE, t, {}), /missing required argument 'id'/);
    refused(() => buildRequest(BASE, t, undefined), /missing required argument 'id'/);
    refused(() => build(null), /missing required argument 'id'/);
    refused(() => build(''), /must not be empty/);
    refused(() => build([]), /must not be empty/);
    refused(() => build('a\u0000b'), /control characters/);
    refused(() => build('a\nb'), /control characters/);
    refused(() => build('\u007f'), /control characters/);
    refused(() => build({ a: { b: 1 } }), /object properties must be strings/);
    refused(() => build([['x']]), /array items must be strings/);
    refused(() => build(Number.NaN), /must be a string, number, boolean/);
    refused(() => build(10n), /must be a string, number, boolean/);
    // Very long: refused by the URL bound, and the message does not echo the value.
    let message = '';
    try {
      build('x'.repeat(20_000));
    } catch (error) {
      message = (error as Error).message;
    }
    expect(message).toMatch(new RegExp(`longer than ${MAX_URL_CHARS}`));
    expect(message).not.toContain('xxxx');
    // Just under the bound passes.
    const fits = MAX_URL_CHARS - `${BASE}/pets//toys`.length;
    expect(build('y'.repeat(fits)).url.href).toHaveLength(MAX_URL_CHARS);
    refused(() => build('y'.repeat(fits + 1)), /longer than/);
  });
});

describe('query styles (the OpenAPI style table)', () => {
  it('openapi:query-styles — form, spaceDelimited, pipeDelimited and deepObject for a string, an array and an object', () => {
    const rows: [string, boolean, string | undefined, string | undefined, string | undefined][] = [
      ['form', false, 'color=blue', 'color=blue,black,brown', 'color=R,100,G,200,B,150'],
      ['form', true, 'color=blue', 'color=blue&color=black&color=brown', 'R=100&G=200&B=150'],
      ['spaceDelimited', false, undefined, 'color=blue%20black%20brown', 'color=R%20100%20G%20200%20B%20150'],
      ['pipeDelimited', false, undefined, 'color=blue%7Cblack%7Cbrown', 'color=R%7C100%7CG%7C200%7CB%7C150'],
      ['deepObject', true, undefined, undefined, 'color%5BR%5D=100&color%5BG%5D=200&color%5BB%5D=150'],
    ];
    for (const [style, explode, string, array, object] of rows) {
      const p = parameter({ name: 'color', in: 'query', style, explode });
      if (string !== undefined) expect(queryOf(p, STRING)).toBe(`?${string}`);
      if (array !== undefined) expect(queryOf(p, ARRAY)).toBe(`?${array}`);
      if (object !== undefined) expect(queryOf(p, OBJECT)).toBe(`?${object}`);
    }
    // The undefined column: an empty string or array is `color=`.
    expect(queryOf(parameter({ name: 'color', in: 'query' }), '')).toBe('?color=');
    expect(queryOf(parameter({ name: 'color', in: 'query', explode: false }), [])).toBe('?color=');
    // deepObject of a primitive or an array is refused (the table's n/a).
    refused(
      () => queryOf(parameter({ name: 'color', in: 'query', style: 'deepObject', explode: true }), 'blue'),
      /must be an object/,
    );
  });

  it('openapi:query-values — values are encoded, omitted optionals are not sent, booleans and numbers as JSON, required ones must be given', () => {
    const q = parameter({ name: 'q', in: 'query' });
    const limit = parameter({ name: 'limit', in: 'query', required: true });
    const flag = parameter({ name: 'flag', in: 'query' });
    const t = tool('/search', [q, limit, flag]);
    expect(buildRequest(BASE, t, { q: 'a&admin=true#x', limit: 10 }).url.search).toBe(
      '?q=a%26admin%3Dtrue%23x&limit=10',
    );
    expect(buildRequest(BASE, t, { limit: 0.5, flag: true }).url.search).toBe('?limit=0.5&flag=true');
    expect(buildRequest(BASE, t, { limit: 1, q: null }).url.search).toBe('?limit=1');
    expect(buildRequest(BASE, t, { limit: 1, q: 'é ü+' }).url.searchParams.get('q')).toBe('é ü+');
    refused(() => buildRequest(BASE, t, { q: 'x' }), /missing required argument 'limit'/);
    refused(() => buildRequest(BASE, t, { limit: { a: [1] } }), /object properties/);
  });

  it("openapi:query-allow-reserved — allowReserved keeps :/?@!$'()*,; and %XX, still encodes & = + # [ ] and a bare %", () => {
    const p = parameter({ name: 'path', in: 'query', allowReserved: true });
    expect(queryOf(p, 'a/b:c@d?e,f;g!h')).toBe('?path=a/b:c@d?e,f;g!h');
    expect(queryOf(p, '%2F%zz')).toBe('?path=%2F%25zz');
    expect(queryOf(p, 'x&y=1+2#z[0]')).toBe('?path=x%26y%3D1%2B2%23z%5B0%5D');
    expect(queryOf(parameter({ name: 'path', in: 'query' }), 'a/b:c')).toBe('?path=a%2Fb%3Ac');
  });

  it('openapi:query-deep-object — nested objects nest brackets, arrays repeat the key, nulls are skipped, depth is bounded', () => {
    const p = parameter({ name: 'filter', in: 'query', style: 'deepObject', explode: true });
    const search = queryOf(p, {
      status: ['open', 'closed'],
      owner: { name: 'a b', id: 7 },
      gone: null,
    });
    expect(search).toBe(
      '?filter%5Bstatus%5D=open&filter%5Bstatus%5D=closed&filter%5Bowner%5D%5Bname%5D=a%20b&filter%5Bowner%5D%5Bid%5D=7',
    );
    const url = new URL(`https://x/${search}`);
    expect(url.searchParams.getAll('filter[status]')).toEqual(['open', 'closed']);
    expect(url.searchParams.get('filter[owner][name]')).toBe('a b');
    let deep: Record<string, unknown> = { leaf: 1 };
    for (let i = 0; i < 7; i += 1) deep = { d: deep };
    expect(queryOf(p, deep)).toContain('=1');
    refused(() => queryOf(p, { d: deep }), /deeper than 8/);
    refused(() => queryOf(p, { a: [{ b: 1 }] }), /arrays in an object/);
  });
});

describe('headers and cookies', () => {
  it('openapi:header-params — simple style, lower-case names, accept set by the builder', () => {
    const t = tool('/x', [
      parameter({ name: 'X-Request-Tag', in: 'header' }),
      parameter({ name: 'X-List', in: 'header' }),
      parameter({ name: 'X-Obj', in: 'header', explode: true }),
      parameter({ name: 'X-Optional', in: 'header' }),
    ]);
    const { headers } = buildRequest(BASE, t, { 'X-Request-Tag': 'tag 1', 'X-List': ARRAY, 'X-Obj': OBJECT });
    expect(headers).toEqual({
      'x-request-tag': 'tag 1',
      'x-list': 'blue,black,brown',
      'x-obj': 'R=100,G=200,B=150',
      accept: 'application/json, */*;q=0.5',
    });
    refused(
      () => buildRequest(BASE, tool('/x', [parameter({ name: 'X-Need', in: 'header', required: true })]), {}),
      /missing required/,
    );
  });

  it('openapi:header-injection — CR, LF, NUL, other controls, non-ASCII and over-long header values are refused', () => {
    const t = tool('/x', [parameter({ name: 'X-Tag', in: 'header' })]);
    for (const value of [
      'a\r\nX-Admin: 1',
      'a\nb',
      'a\rb',
      'a\u0000b',
      'a\u0007b',
      'é',
      '\u2028',
      ' lead',
      'trail ',
      'x'.repeat(4097),
    ])
      refused(() => buildRequest(BASE, t, { 'X-Tag': value }), /X-Tag/);
    refused(() => buildRequest(BASE, t, { 'X-Tag': ['ok', 'b\r\nc'] }), /visible ASCII/);
    expect(buildRequest(BASE, t, { 'X-Tag': 'a\tb c' }).headers['x-tag']).toBe('a\tb c');
  });

  it('openapi:header-reserved — Host, Authorization, Cookie, framing, hop-by-hop, forwarding and trace headers are skipped, never sent', () => {
    const names = [
      'Host',
      'Authorization',
      'authorization',
      'Proxy-Authorization',
      'Cookie',
      'Content-Length',
      'Transfer-Encoding',
      'Connection',
      'Keep-Alive',
      'TE',
      'Trailer',
      'Upgrade',
      'Expect',
      'Accept',
      'Content-Type',
      'X-Forwarded-For',
      'Forwarded',
      'traceparent',
      'Sec-Fetch-Site',
      'Bad Name',
      'X:Colon',
    ];
    const t = tool(
      '/x',
      names.map((name, i) => parameter({ name, in: 'header', required: true, argument: `h${i}` })),
    );
    const args = Object.fromEntries(names.map((_, i) => [`h${i}`, 'evil']));
    const { headers } = buildRequest(BASE, t, args);
    expect(headers).toEqual({ accept: 'application/json, */*;q=0.5' });
  });

  it('openapi:cookie-params — cookie parameters become one Cookie header, values encoded so ; , and spaces cannot split it', () => {
    const t = tool('/x', [
      parameter({ name: 'session', in: 'cookie' }),
      parameter({ name: 'prefs', in: 'cookie' }),
      parameter({ name: 'evil', in: 'cookie' }),
      parameter({ name: 'bad name', in: 'cookie' }),
    ]);
    const { headers } = buildRequest(BASE, t, {
      session: 'abc',
      prefs: ARRAY,
      evil: 'x; admin=1',
      'bad name': 'v',
    });
    expect(headers.cookie).toBe('session=abc; prefs=blue,black,brown; evil=x%3B%20admin%3D1');
    refused(() => buildRequest(BASE, t, { session: 'x'.repeat(5000) }), /cookie parameters are longer/);
  });
});

describe('bodies', () => {
  const json: OperationBody = { mediaType: 'application/json', required: true, argument: 'body' };

  it('openapi:body-json — JSON bodies are written with JSON.stringify and their content type; a required body must be given', () => {
    const t = tool('/pets', [], json, 'POST');
    const request = buildRequest(BASE, t, { body: { name: 'Rex', tags: ['a'], n: null } });
    expect(request.method).toBe('POST');
    expect(request.body).toBe('{"name":"Rex","tags":["a"],"n":null}');
    expect(request.headers['content-type']).toBe('application/json');
    expect(request.headers.accept).toBe('application/json, */*;q=0.5');
    expect(buildRequest(BASE, t, { body: 'just a string' }).body).toBe('"just a string"');
    refused(() => buildRequest(BASE, t, {}), /missing required argument 'body'/);
    const optional = tool(
      '/pets',
      [],
      { ...json, required: false, mediaType: 'application/merge-patch+json' },
      'PATCH',
    );
    const none = buildRequest(BASE, optional, {});
    expect(none.body).toBeUndefined();
    expect(none.headers['content-type']).toBeUndefined();
    expect(buildRequest(BASE, optional, { body: { a: 1 } }).headers['content-type']).toBe(
      'application/merge-patch+json',
    );
  });

  it('openapi:body-form — form bodies: primitives as text, arrays of primitives repeated, objects as JSON text', () => {
    const t = tool(
      '/login',
      [],
      { mediaType: 'application/x-www-form-urlencoded', required: true, argument: 'form' },
      'POST',
    );
    const request = buildRequest(BASE, t, {
      form: { user: 'a b&c', remember: true, scopes: ['read', 'write'], meta: { k: 'v' }, skipped: null },
    });
    expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(request.body).toBe(
      'user=a+b%26c&remember=true&scopes=read&scopes=write&meta=%7B%22k%22%3A%22v%22%7D',
    );
    const parsed = new URLSearchParams(request.body);
    expect(parsed.getAll('scopes')).toEqual(['read', 'write']);
    expect(JSON.parse(parsed.get('meta') ?? '')).toEqual({ k: 'v' });
    refused(() => buildRequest(BASE, t, { form: 'user=a' }), /must be an object/);
  });

  it('openapi:body-text — text/plain bodies take a string (or a primitive), not an object', () => {
    const t = tool('/notes', [], { mediaType: 'text/plain', required: false, argument: 'text' }, 'PUT');
    const request = buildRequest(BASE, t, { text: 'hello\nworld' });
    expect(request.body).toBe('hello\nworld');
    expect(request.headers['content-type']).toBe('text/plain');
    refused(() => buildRequest(BASE, t, { text: { a: 1 } }), /must be a string/);
  });
});
