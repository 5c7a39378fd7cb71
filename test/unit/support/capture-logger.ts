// A Logger twin that records every line, so tests can assert on what was logged and at which level.
import type { Logger } from '../../../gateway/telemetry/logger.js';

export interface LoggedLine {
  readonly level: 'debug' | 'info' | 'warn' | 'error';
  readonly fields: Record<string, unknown>;
  readonly message: string;
}

export interface CaptureLogger extends Logger {
  readonly lines: LoggedLine[];
}

export function captureLogger(lines: LoggedLine[] = [], bound: Record<string, unknown> = {}): CaptureLogger {
  const record = (level: LoggedLine['level']) => (fields: Record<string, unknown>, message: string) => {
    lines.push({ level, fields: { ...bound, ...fields }, message });
  };
  return {
    lines,
    debug: record('debug'),
    info: record('info'),
    warn: record('warn'),
    error: record('error'),
    child: (fields) => captureLogger(lines, { ...bound, ...fields }),
  };
}
