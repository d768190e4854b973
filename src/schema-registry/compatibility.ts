// Compatibility levels over a type's one-way check (Confluent's CompatibilityChecker): BACKWARD, the new
// schema reads data written with the old; FORWARD, the old reads the new; FULL, both; the _TRANSITIVE
// levels check every earlier version, the others only the latest.
import type { Compatibility } from './records.js';
import type { ParsedSchema } from './schema-type.js';

/** Why `candidate` is not compatible with `previous` (oldest first) at `level`; empty when it is. */
export function compatibilityErrors(level: Compatibility, candidate: ParsedSchema, previous: readonly ParsedSchema[]): string[] {
  if (level === 'NONE' || previous.length === 0) return [];
  const against = level.endsWith('_TRANSITIVE') ? [...previous].reverse() : [previous[previous.length - 1]!];
  const backward = level.startsWith('BACKWARD') || level.startsWith('FULL');
  const forward = level.startsWith('FORWARD') || level.startsWith('FULL');
  const errors: string[] = [];
  for (const old of against) {
    if (old.type !== candidate.type) {
      errors.push(`{errorType:'SCHEMA_TYPE_CHANGED', description:'${old.type} -> ${candidate.type}'}`);
      continue;
    }
    if (backward) errors.push(...candidate.readErrors(old));
    if (forward) errors.push(...old.readErrors(candidate));
    if (errors.length > 0) break;
  }
  if (errors.length > 0) errors.push(`{compatibility: '${level}'}`);
  return errors;
}
