// Runs a workspace's guardrail hooks (issue 41 part 5, DESIGN D26): the hooks declared for a method
// and phase (and, for tools/call, matching the tool's exposed name) are asked in declared order;
// each one's rewrite is what the next one sees. A hook is reached through the workspace's network
// guard (the tenant reach policy, like an upstream URL), signed with its own secret, and bounded by
// its time-out and the answer cap. A deny ends the run; a failure ends it when the hook fails
// closed and is skipped when it fails open. Logs name the workspace, hook, phase and a reason
// class: never the URL, the body, the arguments, the result or the secret.
import type { Logger } from 'pino';
import { matchesAny, type Principal } from '../auth/index.js';
import {
  resolveSecret,
  type GuardedMethod,
  type GuardrailHookConfig,
  type HookPhase,
  type SecretReader,
} from '../config/index.js';
import { withDeadline } from '../platform/deadline.js';
import { readLimited } from '../platform/read-limited.js';
import { findReachDenied, type TenantReach } from '../reach/index.js';
import { count, recordDuration } from '../telemetry/metrics.js';
import {
  HOOK_HEADER,
  hookBody,
  MAX_ANSWER_BYTES,
  parseAnswer,
  signature,
  SIGNATURE_HEADER,
  TIMESTAMP_HEADER,
  WIRE_VERSION,
  type HookTarget,
} from './hook-wire.js';

export interface GuardrailHooksDeps {
  /** Where hook secrets are read (absent: none can be, so every hook fails by its policy). */
  readonly secrets?: SecretReader;
  /** The tenant reach policy; absent or without a policy, hooks are reached directly. */
  readonly reach?: TenantReach;
  readonly logger?: Logger;
  /** Unix time in seconds, for the signed timestamp. */
  readonly now?: () => number;
}

/** Why a hook failed: the log's and the metric's reason class. */
export type HookFailure =
  | 'secret_unavailable'
  | 'not_allowed'
  | 'unreachable'
  | 'timeout'
  | 'status'
  | 'too_large'
  | 'malformed'
  | 'retargeted';

export type GuardOutcome =
  | { readonly kind: 'pass'; readonly value: Record<string, unknown>; readonly rewritten: boolean }
  | { readonly kind: 'deny'; readonly hook: string; readonly reason: string | undefined }
  | { readonly kind: 'failed'; readonly hook: string };

export interface GuardQuestion {
  readonly method: GuardedMethod;
  readonly phase: HookPhase;
  readonly principal: Principal;
  readonly target: HookTarget;
  readonly payload: Record<string, unknown>;
  /** The caller's request: when it goes away, the hook's request is cancelled. */
  readonly signal: AbortSignal;
  /** Whether a rewritten request still names the same target for the same caller (a read's URI);
   * a rewrite it refuses is the hook's failure (`retargeted`). */
  readonly accept?: (value: Record<string, unknown>) => Promise<boolean>;
}

type Asked =
  | { readonly decision: 'allow' }
  | { readonly decision: 'deny'; readonly reason: string | undefined }
  | { readonly decision: 'rewrite'; readonly value: Record<string, unknown> }
  | { readonly failure: HookFailure };

export class GuardrailHooks {
  constructor(private readonly deps: GuardrailHooksDeps = {}) {}

  /** Whether the caller's workspace declares no hook at all: then every run passes unchanged, and a
   * caller may skip it (no promise, no question object on the relay path; issue 45). */
  static noneFor(principal: Principal): boolean {
    return principal.workspace.governance.guardrails.hooks.length === 0;
  }

  /** The hooks that see this question; none for most calls, so the common path costs a filter. */
  static selected(question: Pick<GuardQuestion, 'method' | 'phase' | 'principal' | 'target'>) {
    const hooks = question.principal.workspace.governance.guardrails.hooks;
    if (hooks.length === 0) return hooks;
    const { target } = question;
    return hooks.filter(
      (hook) =>
        (hook.methods as readonly string[]).includes(question.method) &&
        hook.phases.includes(question.phase) &&
        (hook.tools === undefined || target.kind !== 'tool' || matchesAny(hook.tools, target.name)),
    );
  }

  async run(question: GuardQuestion): Promise<GuardOutcome> {
    let value = question.payload;
    let rewritten = false;
    for (const hook of GuardrailHooks.selected(question)) {
      const started = performance.now();
      const asked = await this.accepted(question, await this.ask(hook, { ...question, payload: value }));
      const decision =
        'failure' in asked ? (hook.failure === 'open' ? 'failed_open' : 'failed_closed') : asked.decision;
      this.observe(question, hook, decision, started);
      if ('failure' in asked) {
        this.deps.logger?.warn(
          {
            workspace: question.principal.workspace.name,
            hook: hook.name,
            phase: question.phase,
            method: question.method,
            reason: asked.failure,
            failure: hook.failure,
          },
          'guardrail hook failed',
        );
        if (hook.failure === 'open') continue;
        return { kind: 'failed', hook: hook.name };
      }
      if (asked.decision === 'deny') return { kind: 'deny', hook: hook.name, reason: asked.reason };
      if (asked.decision === 'rewrite') {
        value = asked.value;
        rewritten = true;
      }
    }
    return { kind: 'pass', value, rewritten };
  }

  /** The answer, unless it is a rewrite the question does not accept (checked outside the hook's
   * time-out: it is the gateway's work, not the hook's). */
  private async accepted(question: GuardQuestion, asked: Asked): Promise<Asked> {
    if (!('decision' in asked) || asked.decision !== 'rewrite' || question.accept === undefined) return asked;
    const ok = await question.accept(asked.value).catch(() => false);
    return ok ? asked : { failure: 'retargeted' };
  }

  private async ask(hook: GuardrailHookConfig, question: GuardQuestion): Promise<Asked> {
    let secret: string;
    try {
      secret = resolveSecret(hook.secret, this.deps.secrets ?? NO_SECRETS);
    } catch {
      return { failure: 'secret_unavailable' };
    }
    const body = hookBody({ ...question, hook: hook.name });
    const timestamp = String(Math.floor(this.deps.now?.() ?? Date.now() / 1000));
    const send = this.fetchFor(question.principal);
    try {
      return await withDeadline(question.signal, hook.timeoutMs, async (signal) => {
        const response = await send(hook.url, {
          method: 'POST',
          redirect: 'manual',
          signal,
          headers: {
            'content-type': 'application/json',
            accept: 'application/json',
            [HOOK_HEADER]: hook.name,
            [TIMESTAMP_HEADER]: timestamp,
            [SIGNATURE_HEADER]: signature(secret, timestamp, body),
            'x-agw-wire-version': WIRE_VERSION,
          },
          body,
        });
        if (response.status < 200 || response.status > 299) {
          await response.body?.cancel().catch(() => undefined);
          return { failure: 'status' };
        }
        const text = await readLimited(response, MAX_ANSWER_BYTES);
        if (text === undefined) return { failure: 'too_large' };
        const answer = parseAnswer(text, question.phase, question.method);
        return 'malformed' in answer ? { failure: 'malformed' } : answer;
      });
    } catch (error) {
      if (findReachDenied(error) !== undefined) return { failure: 'not_allowed' };
      const name = (error as { name?: unknown } | null)?.name;
      return { failure: name === 'TimeoutError' || name === 'AbortError' ? 'timeout' : 'unreachable' };
    }
  }

  /** The workspace's checked fetch when a reach policy is in force, the process's otherwise. */
  private fetchFor(principal: Principal): typeof fetch {
    return this.deps.reach?.guard(principal.workspace)?.fetch() ?? fetch;
  }

  private observe(question: GuardQuestion, hook: GuardrailHookConfig, decision: string, started: number) {
    const labels = {
      'agw.workspace': question.principal.workspace.name,
      'agw.guardrail.hook': hook.name,
      'agw.guardrail.phase': question.phase,
      'agw.guardrail.decision': decision,
    };
    count('agw.guardrail.hook.decisions', labels);
    recordDuration('agw.guardrail.hook.duration', (performance.now() - started) / 1000, labels);
  }
}

const NO_SECRETS: SecretReader = {
  readEnv: () => undefined,
  readFile: () => {
    throw new Error('no secrets');
  },
};
