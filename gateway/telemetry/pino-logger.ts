// The production logger: pino, JSON lines on stdout. Redaction is a second line of defence; the
// first is that no code passes headers, bodies, arguments, results or secrets to a logger (D15).
import { pino, type DestinationStream, type Logger as PinoLogger } from 'pino';

export type LogLevel = 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';

export function createPinoLogger(
  options: { level?: LogLevel; destination?: DestinationStream } = {},
): PinoLogger {
  const settings = {
    level: options.level ?? 'info',
    base: { service: 'agent-gateway' },
    redact: {
      paths: ['authorization', '*.authorization', 'headers', '*.headers', 'body', '*.body', 'key', 'secret'],
      censor: '[redacted]',
    },
    timestamp: pino.stdTimeFunctions.isoTime,
  };
  return options.destination === undefined ? pino(settings) : pino(settings, options.destination);
}
