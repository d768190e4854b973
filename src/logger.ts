import { pino, type Logger } from 'pino';

/** pino JSON on stdout, one object per line. */
export function createLogger(level: string): Logger {
  return pino({ level, base: { name: 'kafkite' }, timestamp: pino.stdTimeFunctions.isoTime });
}
