// The OpenAPI documents of a workspace's McpSources that the operator holds (issue 44): inline in the
// spec, or a key of a ConfigMap of the workspace's own namespace (never another: D16). Each is
// bounded by what one rendered part can carry, then read with the gateway's own reader
// (gateway/openapi openApiCatalog) for the status: tools, skipped operations and their reasons, or
// the refusal. Reading a document is CPU work, so a result is kept by the document's digest and the
// options; a url document is never fetched here (the gateways fetch it under the reach policy).
import { createHash } from 'node:crypto';
import { MAX_RENDERED_ITEM_BYTES, renderedItemBytes } from '../../gateway/config/kube/index.js';
import { OpenApiDocumentError, openApiCatalog } from '../../gateway/openapi/index.js';
import type { ControllerCaches, Resource } from './controller-caches.js';
import { documentTooLarge, type OpenApiDocumentRead, type OpenApiSummary } from './plan/openapi-plan.js';
import type { ReadyCondition } from './plan/ready-condition.js';
import type { McpSourceView, OpenApiSpecView } from './plan/resource-views.js';

/** Results kept (by digest and options); the oldest goes first. */
const CACHE_ENTRIES = 64;

export class OpenApiDocuments {
  private readonly results = new Map<string, OpenApiSummary | ReadyCondition>();

  constructor(private readonly caches: Pick<ControllerCaches, 'configMap'>) {}

  /** The documents of `sources` (in `namespace`) that the operator reads, by source name. */
  async read(
    namespace: string,
    sources: readonly Resource<McpSourceView['spec']>[],
  ): Promise<Map<string, OpenApiDocumentRead>> {
    const reads = new Map<string, OpenApiDocumentRead>();
    for (const source of sources) {
      const spec = source.spec.openapi;
      if (source.spec.transport !== 'openapi' || spec === undefined || source.spec.run !== undefined)
        continue;
      if (spec.document.url !== undefined) continue;
      const text = this.text(namespace, spec.document);
      if (typeof text !== 'string') {
        reads.set(source.metadata.name, { problem: text });
        continue;
      }
      const bytes = renderedItemBytes('mcpSources', text);
      if (bytes > MAX_RENDERED_ITEM_BYTES) {
        reads.set(source.metadata.name, { problem: documentTooLarge(bytes) });
        continue;
      }
      const summary = await this.summary(text, spec);
      reads.set(source.metadata.name, 'reason' in summary ? { problem: summary } : { text, summary });
    }
    return reads;
  }

  private text(namespace: string, document: OpenApiSpecView['document']): string | ReadyCondition {
    if (document.inline !== undefined) return document.inline;
    const ref = document.configMapKeyRef;
    if (ref === undefined)
      return {
        ready: false,
        reason: 'InvalidSpec',
        message: 'spec.openapi.document: give exactly one of url, inline and configMapKeyRef',
      };
    const configMap = this.caches.configMap?.(namespace, ref.name);
    if (configMap === undefined)
      return {
        ready: false,
        reason: 'ConfigMapNotFound',
        message: `ConfigMap ${ref.name} (spec.openapi.document.configMapKeyRef) was not found in this namespace`,
      };
    const value = configMap.data?.[ref.key];
    if (value === undefined)
      return {
        ready: false,
        reason: 'ConfigMapKeyNotFound',
        message: `ConfigMap ${ref.name} has no data key ${ref.key} (spec.openapi.document.configMapKeyRef)`,
      };
    return value;
  }

  private async summary(text: string, spec: OpenApiSpecView): Promise<OpenApiSummary | ReadyCondition> {
    const digest = `sha256:${createHash('sha256').update(text, 'utf8').digest('hex')}`;
    const key = `${digest} ${JSON.stringify([spec.include ?? {}, spec.limits ?? {}])}`;
    const known = this.results.get(key);
    if (known !== undefined) return known;
    const result = await catalogSummary(text, digest, spec);
    this.results.set(key, result);
    if (this.results.size > CACHE_ENTRIES) this.results.delete(this.results.keys().next().value as string);
    return result;
  }
}

async function catalogSummary(
  text: string,
  digest: string,
  spec: OpenApiSpecView,
): Promise<OpenApiSummary | ReadyCondition> {
  try {
    const catalog = await openApiCatalog(text, {
      filter: defined(spec.include ?? {}),
      limits: defined(spec.limits ?? {}),
    });
    return {
      digest,
      title: catalog.title,
      version: catalog.version,
      tools: catalog.tools.length,
      skipped: catalog.skipped,
    };
  } catch (error) {
    // The reader's refusals are sentences safe to show the source's admin; anything else is not shown.
    return {
      ready: false,
      reason: 'DocumentRefused',
      message: `spec.openapi.document: ${
        error instanceof OpenApiDocumentError ? error.condition : 'the document could not be read'
      }`.slice(0, 1000),
    };
  }
}

function defined<T>(record: Readonly<Record<string, T | undefined>>): Record<string, T> {
  return Object.fromEntries(Object.entries(record).filter(([, v]) => v !== undefined)) as Record<string, T>;
}
