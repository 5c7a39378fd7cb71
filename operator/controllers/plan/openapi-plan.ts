// An McpSource with transport openapi (issue 44), planned: its spec.openapi rendered for the gateways
// (a url as it is, after the reach policy; an inline or ConfigMap document as the text itself), and
// what its status says of the document: the operation and tool counts and the skipped operations
// with their reasons, under a DocumentAccepted condition. The operator reads only documents it holds
// (inline, ConfigMap); a url document is fetched by the gateways under the tenant reach policy.
import { MAX_RENDERED_ITEM_BYTES } from '../../../gateway/config/kube/index.js';
import type { SkippedOperation } from '../../../gateway/openapi/index.js';
import type { ReachCheck } from './reach-check.js';
import type { ExtraCondition, ReadyCondition } from './ready-condition.js';
import type { OpenApiSpecView } from './resource-views.js';

/** Most skipped operations listed in status (api/v1alpha1 MAX_SKIPPED_IN_STATUS). */
const MAX_SKIPPED = 50;

/** What the operator learnt from a document it read (controllers/openapi-documents.ts). */
export interface OpenApiSummary {
  readonly digest: string;
  readonly title: string;
  readonly version: string;
  readonly tools: number;
  readonly skipped: readonly SkippedOperation[];
}

/** A document the operator read (inline or configMapKeyRef): its text and summary, or why not. */
export type OpenApiDocumentRead =
  { readonly text: string; readonly summary: OpenApiSummary } | { readonly problem: ReadyCondition };

/** The source's status.openapi (null fields are removed by the merge patch) and DocumentAccepted. */
export interface OpenApiOutcome {
  readonly status: Readonly<Record<string, unknown>>;
  readonly accepted: ExtraCondition;
}

export interface OpenApiPlan {
  readonly outcome: OpenApiOutcome;
  /** Set when the source is not rendered. */
  readonly problem?: ReadyCondition;
  /** The config contract's `openapi` block. */
  readonly render?: Record<string, unknown>;
}

type DocumentKind = 'url' | 'inline' | 'configMapKeyRef';

export function planOpenApi(
  spec: OpenApiSpecView | undefined,
  read: OpenApiDocumentRead | undefined,
  reach: ReachCheck | undefined,
): OpenApiPlan {
  if (spec === undefined) {
    const problem = {
      ready: false,
      reason: 'InvalidSpec',
      message: 'spec.openapi: is required with transport openapi',
    };
    return { problem, outcome: refused('inline', problem) };
  }
  const document = spec.document;
  const kind: DocumentKind =
    document.url !== undefined ? 'url' : document.inline !== undefined ? 'inline' : 'configMapKeyRef';
  const rest = {
    ...(spec.include === undefined ? {} : { include: spec.include }),
    ...(spec.limits === undefined ? {} : { limits: spec.limits }),
  };
  if (document.url !== undefined) {
    const problem = reach?.url('spec.openapi.document.url', document.url);
    if (problem !== undefined) return { problem, outcome: refused(kind, problem) };
    return {
      render: { document: { url: document.url }, ...rest },
      outcome: {
        status: statusOf(kind),
        accepted: {
          type: 'DocumentAccepted',
          status: 'Unknown',
          reason: 'FetchedByGateways',
          message:
            'the gateways fetch spec.openapi.document.url under the tenant reach policy; the operator does not fetch tenant URLs (a refusal shows in the source last_error of /agent/sources)',
        },
      },
    };
  }
  if (read === undefined) {
    const problem = {
      ready: false,
      reason: 'DocumentNotRead',
      message: 'spec.openapi.document: not read yet',
    };
    return { problem, outcome: refused(kind, problem) };
  }
  if ('problem' in read) return { problem: read.problem, outcome: refused(kind, read.problem) };
  const { summary } = read;
  const operations = summary.tools + summary.skipped.length;
  const skippedNote =
    summary.skipped.length === 0 ? '' : `; ${summary.skipped.length} skipped (status.openapi.skipped)`;
  return {
    render: { document: { inline: read.text }, ...rest },
    outcome: {
      status: {
        ...statusOf(kind),
        operations,
        tools: summary.tools,
        skippedCount: summary.skipped.length,
        skipped:
          summary.skipped.length === 0
            ? null
            : summary.skipped.slice(0, MAX_SKIPPED).map((s) => ({
                operation: s.operation.slice(0, 300),
                reason: s.reason.slice(0, 500),
              })),
        title: summary.title.slice(0, 200),
        version: summary.version.slice(0, 200),
        digest: summary.digest,
      },
      accepted: {
        type: 'DocumentAccepted',
        status: 'True',
        reason: 'DocumentRead',
        message: `${summary.tools} tool${summary.tools === 1 ? '' : 's'} from ${operations} operation${operations === 1 ? '' : 's'}${skippedNote}`,
      },
    },
  };
}

/** An McpSource whose rendered config (its OpenAPI document inline) exceeds what one part holds. */
export function documentTooLarge(bytes: number): ReadyCondition {
  const kib = (n: number) => `${Math.ceil(n / 1024)} KiB`;
  return {
    ready: false,
    reason: 'DocumentTooLarge',
    message: `spec.openapi.document: the source rendered with its document takes ${kib(bytes)}; the gateways' config holds at most ${kib(MAX_RENDERED_ITEM_BYTES)} per source (Kubernetes objects are at most 1 MiB): give the document as a url instead`,
  };
}

/** The outcome of a document refused after it was read (e.g. it does not fit a rendered part). */
export function refusedAfterRead(plan: OpenApiPlan, problem: ReadyCondition): OpenApiPlan {
  const kind = (plan.outcome.status['document'] as DocumentKind | undefined) ?? 'inline';
  return { problem, outcome: refused(kind, problem) };
}

function refused(kind: DocumentKind, problem: ReadyCondition): OpenApiOutcome {
  return {
    status: statusOf(kind),
    accepted: { type: 'DocumentAccepted', status: 'False', reason: problem.reason, message: problem.message },
  };
}

function statusOf(kind: DocumentKind): Record<string, unknown> {
  return {
    document: kind,
    operations: null,
    tools: null,
    skippedCount: null,
    skipped: null,
    title: null,
    version: null,
    digest: null,
  };
}
