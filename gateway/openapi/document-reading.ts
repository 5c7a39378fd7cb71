// An OpenAPI document's text read into a validated object (issue 44): size first, then JSON or YAML,
// then the checks that make it safe to hand to @readme/openapi-parser (3.0/3.1 only, no external
// `$ref` — a tenant's document must not make the gateway read files or reach URLs —, bounded nesting,
// operation count and ref expansion), then the parser's validation. Every refusal is an
// OpenApiDocumentError with a condition its admin can act on.

import { validate, type ParserOptions } from '@readme/openapi-parser';
import { parse as parseYaml } from 'yaml';
import { nestsDeeperThan } from '../platform/nesting-depth.js';
import { formatBytes, OpenApiDocumentError, quoted, type DocumentLimits } from './document-limits.js';
import { isRecord } from '../platform/is-record.js';
import { followRefs, isLocalRef, own } from './json-pointer.js';
import { expansionExcess } from './ref-expansion.js';

/** Nesting of the text, and of the expansion (levels plus ref hops): far past any real document. */
const MAX_NESTING = 1000;
const MAX_LISTED_ERRORS = 3;

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;

export interface ReadDocument {
  readonly document: Record<string, unknown>;
  /** 3.0 documents use `nullable` and boolean `exclusiveMinimum`; their `$ref` siblings are ignored. */
  readonly version: '3.0' | '3.1';
}

export async function readDocument(text: string, limits: DocumentLimits): Promise<ReadDocument> {
  const bytes = Buffer.byteLength(text, 'utf8');
  if (bytes > limits.maxDocumentBytes)
    refuse(`the document is ${formatBytes(bytes)}; the limit is ${formatBytes(limits.maxDocumentBytes)}`);
  const document = parseText(text);
  const version = openApiVersion(document);
  if (nestsDeeperThan(document, MAX_NESTING)) refuse(`the document nests deeper than ${MAX_NESTING} levels`);
  const external = firstExternalRef(document);
  if (external !== undefined)
    refuse(
      `the document has the external $ref ${quoted(external)}; only refs inside the document (#/…) are read`,
    );
  const operations = countOperations(document);
  if (operations > limits.maxOperations)
    refuse(`the document has ${operations} operations; the limit is ${limits.maxOperations}`);
  const excess = expansionExcess(document, limits.maxExpandedBytes, MAX_NESTING);
  if (excess === 'bytes')
    refuse(
      `the document's $refs expand to more than ${formatBytes(limits.maxExpandedBytes)} (refs that fan out)`,
    );
  if (excess === 'depth') refuse(`the document's $refs nest deeper than ${MAX_NESTING} levels`);
  await validated(document);
  return { document, version };
}

function refuse(condition: string): never {
  throw new OpenApiDocumentError(condition);
}

function parseText(text: string): Record<string, unknown> {
  let parsed: unknown;
  const json = text.trimStart().startsWith('{');
  try {
    // YAML aliases are the other billion laughs: the yaml package refuses an excessive alias count.
    parsed = json ? JSON.parse(text) : parseYaml(text, { maxAliasCount: 100, prettyErrors: false });
  } catch (error) {
    const detail = /call stack/i.test(firstLine(error)) ? 'it nests too deeply' : firstLine(error);
    refuse(`the document is not valid ${json ? 'JSON' : 'YAML'}: ${detail}`);
  }
  if (!isRecord(parsed)) refuse('the document is not a JSON or YAML object');
  return parsed;
}

function openApiVersion(document: Record<string, unknown>): '3.0' | '3.1' {
  const swagger = own(document, 'swagger');
  if (swagger !== undefined)
    refuse(
      `the document is Swagger ${quoted(typeof swagger === 'string' ? swagger : (JSON.stringify(swagger) ?? ''), 20)}; only OpenAPI 3.0 and 3.1 are read (convert it first)`,
    );
  const openapi = own(document, 'openapi');
  if (typeof openapi !== 'string')
    refuse('the document has no `openapi` version; it is not an OpenAPI document');
  const match = /^3\.([01])\.\d+(-.+)?$/.exec(openapi);
  if (match === null) refuse(`the document is OpenAPI ${quoted(openapi, 20)}; only 3.0 and 3.1 are read`);
  return match[1] === '0' ? '3.0' : '3.1';
}

/** The first `$ref` (anywhere: the parser follows every one) that does not point inside the document. */
function firstExternalRef(document: unknown): string | undefined {
  const stack: unknown[] = [document];
  while (stack.length > 0) {
    const node = stack.pop();
    if (typeof node !== 'object' || node === null) continue;
    if (Array.isArray(node)) {
      stack.push(...(node as unknown[]));
      continue;
    }
    for (const [key, value] of Object.entries(node)) {
      if (key === '$ref' && typeof value === 'string' && !isLocalRef(value)) return value;
      if (typeof value === 'object' && value !== null) stack.push(value);
    }
  }
  return undefined;
}

function countOperations(document: Record<string, unknown>): number {
  const paths = own(document, 'paths');
  if (!isRecord(paths)) return 0;
  let count = 0;
  for (const item of Object.values(paths)) {
    const pathItem = followRefs(document, item);
    if (!isRecord(pathItem)) continue;
    for (const method of HTTP_METHODS) if (isRecord(own(pathItem, method))) count++;
  }
  return count;
}

async function validated(document: Record<string, unknown>): Promise<void> {
  const options: ParserOptions = {
    resolve: { external: false, file: false },
    validate: {
      // Tool names are made unique anyway, and an array without `items` accepts any items.
      rules: { openapi: { 'duplicate-operation-id': 'warning', 'array-without-items': 'warning' } },
    },
  };
  let result: Awaited<ReturnType<typeof validate>>;
  try {
    // The parser dereferences in place: it gets a copy, so the catalogue reads the refs itself.
    result = await validate(structuredClone(document) as Parameters<typeof validate>[0], options);
  } catch (error) {
    refuse(`the document could not be validated: ${firstLine(error)}`);
  }
  if (result.valid) return;
  const errors = result.errors.slice(0, MAX_LISTED_ERRORS).map((error) => firstLine(error.message, 300));
  const more = result.errors.length + result.additionalErrors - errors.length;
  refuse(`the document is not valid OpenAPI: ${errors.join('; ')}${more > 0 ? ` (and ${more} more)` : ''}`);
}

function firstLine(error: unknown, max = 200): string {
  const message = error instanceof Error ? error.message : String(error);
  const line = message.split('\n').find((part) => part.trim() !== '') ?? 'unknown error';
  return line.length > max ? `${line.slice(0, max)}…` : line.trim();
}
