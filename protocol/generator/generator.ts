// Turns Kafka's message and record definitions (read from the jars in test/kafka/lib) into the contents of
// protocol/generated/: the protocol's messages at its top, the records Kafka writes into its logs in records/.
import { emitIndex } from './emit-index.js';
import { emitMessage } from './emit-message.js';
import { emitRecordsIndex } from './emit-records-index.js';
import { emitSchemas } from './emit-schemas.js';
import { withLegacyVersions } from './legacy-versions.js';
import { resolveMessage, type MessageDef } from './model.js';
import { loadMessageSpecs, loadRecordSpecs, type MessageSpec } from './spec.js';

function emitAll(specs: readonly MessageSpec[], files: Map<string, string>, folder: string, primitives: string): MessageDef[] {
  return specs.map((spec) => {
    try {
      const message = resolveMessage(spec);
      files.set(`${folder}${message.name}.ts`, emitMessage(message, primitives));
      return message;
    } catch (err) {
      throw new Error(`${spec.name}: ${(err as Error).message}`);
    }
  });
}

/** Generated file path (relative to protocol/generated) → content, from the jars in `lib`. */
export function generateFiles(lib: string): Map<string, string> {
  const files = new Map<string, string>();
  // The protocol's messages with the versions kafkite serves below Kafka 4.4's.
  const messageSpecs = loadMessageSpecs(lib).map(withLegacyVersions);
  files.set('index.ts', emitIndex(emitAll(messageSpecs, files, '', '../primitives.js')));
  files.set('schemas.ts', emitSchemas(messageSpecs, 'MESSAGE_SCHEMAS'));
  const recordSpecs = loadRecordSpecs(lib);
  files.set('records/index.ts', emitRecordsIndex(emitAll(recordSpecs, files, 'records/', '../../primitives.js')));
  files.set('records/schemas.ts', emitSchemas(recordSpecs, 'RECORD_SCHEMAS'));
  return files;
}
