// The gateway's own telemetry settings in the config file (issue 29). Traces and metrics are set by
// the standard OTEL_* variables (docs/observability.md); the audit trail is set here because it is
// a record the operator of the gateway owes, not a debugging aid: on by default (docs/audit.md).
// Read once at start; a reload does not move the sink.
import { z } from 'zod';

export const AUDIT_SINKS = ['stderr', 'file'] as const;

export const AUDIT_DEFAULTS = {
  enabled: true,
  sink: 'stderr' as const,
  maxFileBytes: 100 * 1024 * 1024,
  maxFiles: 5,
  queueBytes: 8 * 1024 * 1024,
};

export const AuditConfigSchema = z
  .strictObject({
    enabled: z.boolean().default(AUDIT_DEFAULTS.enabled).describe('Write an audit record per request.'),
    sink: z
      .enum(AUDIT_SINKS)
      .default(AUDIT_DEFAULTS.sink)
      .describe('stderr (JSON lines; the application log is on stdout) or file (JSON lines at `path`).'),
    path: z.string().min(1).max(4096).optional().describe('The audit file, with sink: file.'),
    maxFileBytes: z
      .number()
      .int()
      .min(4096)
      .max(64 * 1024 * 1024 * 1024)
      .default(AUDIT_DEFAULTS.maxFileBytes)
      .describe('With sink: file, the file is rotated (renamed to <path>.1) before it grows past this.'),
    maxFiles: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(AUDIT_DEFAULTS.maxFiles)
      .describe('Rotated files kept (<path>.1 … <path>.N); the oldest is deleted.'),
    queueBytes: z
      .number()
      .int()
      .min(64 * 1024)
      .max(256 * 1024 * 1024)
      .default(AUDIT_DEFAULTS.queueBytes)
      .describe('Records waiting for a slow or failing sink; past this they are dropped and counted.'),
  })
  .superRefine((audit, ctx) => {
    if (audit.enabled && audit.sink === 'file' && audit.path === undefined)
      ctx.addIssue({ code: 'custom', path: ['path'], message: 'is required with sink: file' });
  });
export type AuditConfig = z.infer<typeof AuditConfigSchema>;

export const TelemetrySchema = z.strictObject({
  audit: AuditConfigSchema.default(AUDIT_DEFAULTS),
});
export const TELEMETRY_DEFAULTS = { audit: AUDIT_DEFAULTS };
