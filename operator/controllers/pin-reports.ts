// Pinned tool definitions, the operator's half (issue 41): a gateway reports the tools of a source
// whose definition is not the approved one; here the report becomes the McpSource's status.pinning
// (what awaits approval, with the digests to put into spec.pinning.approved) and an Event when the set
// changes, so `kubectl describe` and `kubectl get -o yaml` are enough to review and approve. Only the
// gateways' ServiceAccount may report: its projected token is reviewed by the API server. Any
// operator replica answers (reads its informer caches, one status write).
import { createHash } from 'node:crypto';
import { describeUnapproved, PinReportSchema, type PinReport } from '../../gateway/discovery/index.js';
import type { Logger } from '../../gateway/telemetry/logger.js';
import type { EventRecorder } from '../kube/event-recorder.js';
import type { KubeWriter } from '../kube/kube-writer.js';
import { OPERATOR_AUDIENCE, type TokenReviewer } from '../kube/token-reviewer.js';
import type { ControllerCaches } from './controller-caches.js';
import { PLURALS } from './status-reporter.js';

export interface PinReportsDeps {
  readonly caches: ControllerCaches;
  readonly writer: KubeWriter;
  readonly reviewer: TokenReviewer;
  /** The only user that may report: `system:serviceaccount:<namespace>:<name>` of the gateways. */
  readonly gatewayUser: string;
  readonly events?: EventRecorder;
  readonly logger: Logger;
  readonly now?: () => Date;
}

/** 202 written (or unchanged), 400 a report that does not parse, 401 not the gateways, 404 no such
 * McpSource (said only to an authenticated gateway), 503 the token could not be reviewed now. */
export type PinReportAnswer = { readonly status: 202 | 400 | 401 | 404 | 503 };

/** How long a reviewed token is trusted without asking the API server again. */
const REVIEW_TTL_MS = 60_000;
const MAX_REVIEWED = 64;

interface StatusPinning {
  readonly mode: string;
  readonly unapprovedCount: number;
  readonly unapproved?: readonly {
    tool: string;
    change: string;
    fields?: string;
    digest: string;
    description: string;
  }[];
  readonly reportedAt: string;
}

/** The tools and digests of a report or status, as one comparable string. */
function toolSet(unapproved: readonly { tool: string; digest: string }[] | undefined): string {
  return (unapproved ?? [])
    .map((tool) => `${tool.tool}\u0000${tool.digest}`)
    .sort()
    .join('\u0001');
}

/** One line per tool for the Event: `echo (changed: description; approve sha256:…)`. */
function eventMessage(report: PinReport): string {
  const lines = report.unapproved.map(describeUnapproved);
  const held = report.mode === 'pin' ? 'held until approved' : 'served unapproved (warn)';
  return `${report.unapproved.length} tool definition(s) ${held}: ${lines.join('; ')}`.slice(0, 1000);
}

export class PinReports {
  private readonly reviewed = new Map<string, { user: string | undefined; until: number }>();

  constructor(private readonly deps: PinReportsDeps) {}

  async handle(
    namespace: string,
    source: string,
    bearer: string | undefined,
    body: unknown,
  ): Promise<PinReportAnswer> {
    const user = bearer === undefined ? undefined : await this.userOf(bearer).catch(() => null);
    if (user === null) return { status: 503 };
    if (user !== this.deps.gatewayUser) return { status: 401 };
    const parsed = PinReportSchema.safeParse(body);
    if (!parsed.success) return { status: 400 };
    const resource = this.deps.caches
      .mcpSources(namespace)
      .find((s) => s.metadata.name === source && s.metadata.deletionTimestamp === undefined);
    if (resource === undefined) return { status: 404 };
    const report = parsed.data;
    const previous = (resource.status as { pinning?: StatusPinning } | undefined)?.pinning;
    const changed =
      previous === undefined ||
      previous.mode !== report.mode ||
      toolSet(previous.unapproved) !== toolSet(report.unapproved);
    if (!changed) return { status: 202 };
    const pinning: StatusPinning = {
      mode: report.mode,
      unapprovedCount: report.unapproved.length,
      unapproved: report.unapproved.map((tool) => ({
        tool: tool.tool,
        change: tool.change,
        ...(tool.fields === undefined ? {} : { fields: tool.fields.join(', ') }),
        digest: tool.digest,
        description: tool.description,
      })),
      reportedAt: (this.deps.now ?? (() => new Date()))()
        .toISOString()
        .replace(/\.\d+Z$/, 'Z'),
    };
    await this.deps.writer.patchStatus(PLURALS.mcpSource, namespace, source, { pinning });
    const subject = {
      kind: 'McpSource',
      namespace,
      name: source,
      ...(resource.metadata.uid === undefined ? {} : { uid: resource.metadata.uid }),
    };
    const [type, reason, message] =
      report.unapproved.length === 0
        ? (['Normal', 'ToolDefinitionsApproved', 'every tool definition is approved'] as const)
        : (['Warning', 'ToolDefinitionsNotApproved', eventMessage(report)] as const);
    await this.deps.events?.record(subject, type, reason, message).catch((error: unknown) => {
      this.deps.logger.debug({ err: error, namespace, source }, 'event not recorded');
    });
    return { status: 202 };
  }

  /** The reviewed user of a token, asked of the API server at most once a minute per token. */
  private async userOf(token: string): Promise<string | undefined> {
    const key = createHash('sha256').update(token, 'utf8').digest('hex');
    const now = Date.now();
    const known = this.reviewed.get(key);
    if (known !== undefined && known.until > now) return known.user;
    // A review that failed (the API server unreachable) is not remembered: the next report asks again.
    const user = await this.deps.reviewer.review(token, OPERATOR_AUDIENCE);
    if (this.reviewed.size >= MAX_REVIEWED) this.reviewed.delete(this.reviewed.keys().next().value as string);
    this.reviewed.set(key, { user, until: now + REVIEW_TTL_MS });
    return user;
  }
}
