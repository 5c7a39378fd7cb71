// An OpenAPI 3.0/3.1 document read as the tools of a source (issue 44): every operation the filter
// lets through becomes a tool, or a skipped operation with its reason when it cannot be called as one
// (a body only multipart can carry, an input schema past its bounds…). The document as a whole is
// refused (OpenApiDocumentError) when it is too large, has too many operations, is not OpenAPI 3.0/3.1,
// refers outside itself or is invalid. Pure: no I/O; the same text gives the same catalogue.

import { DOCUMENT_LIMIT_DEFAULTS, type DocumentLimits } from './document-limits.js';
import { HTTP_METHODS, readDocument } from './document-reading.js';
import { isRecord } from '../platform/is-record.js';
import { followRefs, own } from './json-pointer.js';
import { operationPredicate } from './operation-filter.js';
import { operationTool, type DocumentOperation } from './operation-tool.js';
import type { OpenApiCatalog, OpenApiTool, OperationFilter, SkippedOperation } from './openapi-tool.js';
import { SchemaResolver, SkipOperation } from './schema-resolver.js';
import { toolNames } from './tool-naming.js';

export { DOCUMENT_LIMIT_DEFAULTS, OpenApiDocumentError, type DocumentLimits } from './document-limits.js';

export interface CatalogOptions {
  readonly filter?: OperationFilter;
  /** Tool names forced read-only (`readOnlyHint: true`). */
  readonly readOnly?: readonly string[];
  /** Tool names forced write (`readOnlyHint: false`); a name in both lists is write. */
  readonly write?: readonly string[];
  readonly limits?: Partial<DocumentLimits>;
}

const MAX_INFO = 200;
const MAX_LABEL = 200;

export async function openApiCatalog(
  document: string,
  options: CatalogOptions = {},
): Promise<OpenApiCatalog> {
  const limits: DocumentLimits = { ...DOCUMENT_LIMIT_DEFAULTS, ...definedLimits(options.limits) };
  const { document: doc, version } = await readDocument(document, limits);
  const operations = documentOperations(doc);
  const names = toolNames(
    operations.map((entry) => ({ method: entry.method, path: entry.path, operationId: operationId(entry) })),
  );
  const passes = operationPredicate(options.filter);
  const readOnly = new Set(options.readOnly ?? []);
  const write = new Set(options.write ?? []);
  const resolver = new SchemaResolver(doc, version, limits);
  const tools: OpenApiTool[] = [];
  const skipped: SkippedOperation[] = [];
  operations.forEach((entry, index) => {
    const tags = own(entry.operation, 'tags');
    const filtered = {
      method: entry.method,
      path: entry.path,
      tags: Array.isArray(tags) ? tags.filter((tag): tag is string => typeof tag === 'string') : [],
      operationId: operationId(entry),
    };
    if (!passes(filtered)) return;
    const name = names[index] as string;
    const forced = write.has(name) ? false : readOnly.has(name) ? true : undefined;
    try {
      const tool = operationTool(doc, entry, name, resolver, limits.maxInputSchemaBytes, forced);
      const servers = operationServers(entry);
      tools.push(Object.freeze(servers === undefined ? tool : { ...tool, servers }));
    } catch (error) {
      if (!(error instanceof SkipOperation)) throw error;
      skipped.push(Object.freeze({ operation: operationLabel(entry), reason: error.reason }));
    }
  });
  const info = isRecord(own(doc, 'info')) ? (own(doc, 'info') as Record<string, unknown>) : {};
  return Object.freeze({
    title: infoText(own(info, 'title')),
    version: infoText(own(info, 'version')),
    servers: serverUrls(own(doc, 'servers')) ?? Object.freeze(['/']),
    tools: Object.freeze(tools),
    skipped: Object.freeze(skipped),
  });
}

function definedLimits(limits: Partial<DocumentLimits> | undefined): Partial<DocumentLimits> {
  return Object.fromEntries(Object.entries(limits ?? {}).filter(([, value]) => value !== undefined));
}

/** Every operation of the document, sorted by path, then method (code-unit order: the same everywhere). */
function documentOperations(doc: Record<string, unknown>): DocumentOperation[] {
  const paths = own(doc, 'paths');
  if (!isRecord(paths)) return [];
  const operations: DocumentOperation[] = [];
  for (const path of Object.keys(paths).sort(byCodeUnits)) {
    const pathItem = followRefs(doc, paths[path]);
    if (!isRecord(pathItem)) continue;
    for (const method of [...HTTP_METHODS].sort(byCodeUnits)) {
      const operation = own(pathItem, method);
      if (isRecord(operation)) operations.push({ path, method, operation, pathItem });
    }
  }
  return operations;
}

function byCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function operationId(entry: DocumentOperation): string | undefined {
  const id = own(entry.operation, 'operationId');
  return typeof id === 'string' ? id : undefined;
}

/** `GET /pets/{id} (getPet)`, as `kubectl describe` shows a skipped operation. */
function operationLabel(entry: DocumentOperation): string {
  const id = operationId(entry);
  const label = `${entry.method.toUpperCase()} ${entry.path}${id === undefined ? '' : ` (${id})`}`;
  return label.length > MAX_LABEL ? `${label.slice(0, MAX_LABEL - 1)}…` : label;
}

/** The operation's `servers`, else its path item's; undefined when neither names any. */
function operationServers(entry: DocumentOperation): readonly string[] | undefined {
  return serverUrls(own(entry.operation, 'servers')) ?? serverUrls(own(entry.pathItem, 'servers'));
}

/** Server URLs with `{variables}` as their defaults; undefined when the list is absent or empty. */
function serverUrls(servers: unknown): readonly string[] | undefined {
  if (!Array.isArray(servers)) return undefined;
  const urls: string[] = [];
  for (const server of servers) {
    if (!isRecord(server) || typeof own(server, 'url') !== 'string') continue;
    const variables = isRecord(own(server, 'variables'))
      ? (own(server, 'variables') as Record<string, unknown>)
      : {};
    const url = (own(server, 'url') as string).replace(/\{([^}]*)\}/g, (whole, name: string) => {
      const variable = own(variables, name);
      const value = isRecord(variable) ? own(variable, 'default') : undefined;
      return typeof value === 'string' ? value : whole;
    });
    urls.push(url);
  }
  return urls.length === 0 ? undefined : Object.freeze(urls);
}

function infoText(value: unknown): string {
  const text = typeof value === 'string' ? value.trim() : '';
  return text.length > MAX_INFO ? `${text.slice(0, MAX_INFO - 1)}…` : text;
}
