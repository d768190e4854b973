// Compatibility levels over a type's one-way check (Confluent's CompatibilityChecker): BACKWARD, the new
// schema reads data written with the old; FORWARD, the old reads the new; FULL, both; the _TRANSITIVE
// levels check every earlier version, the others only the latest.
import type { Compatibility } from './records.js';
import type { ParsedSchema } from './schema-type.js';

/**
 * The versions (oldest first) a check at `level` reads: every one for the _TRANSITIVE levels, the latest otherwise,
 * none for NONE. Callers parse only these: parsing every version at each registration made a subject's n-th
 * registration cost n parses (31 registrations/s at 200 versions a subject in bench/schema-registry.ts).
 */
export function checkedVersions<T>(level: Compatibility, previous: readonly T[]): T[] {
  if (level === 'NONE') return [];
  return level.endsWith('_TRANSITIVE') ? [...previous] : previous.slice(-1);
}

/** Why `candidate` is not compatible with `previous` (oldest first) at `level`; empty when it is. */
export function compatibilityErrors(level: Compatibility, candidate: ParsedSchema, previous: readonly ParsedSchema[]): string[] {
  const against = checkedVersions(level, previous).reverse();
  if (against.length === 0) return [];
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
