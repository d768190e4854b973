// Turns a directory of Kafka message specs into the contents of protocol/generated/.
import { emitIndex } from './emit-index.js';
import { emitMessage } from './emit-message.js';
import { emitSchemas } from './emit-schemas.js';
import { resolveMessage } from './model.js';
import { loadSpecs } from './spec.js';

/** Generated file name → content, for every spec in `specDir`. */
export function generateFiles(specDir: string): Map<string, string> {
  const specs = loadSpecs(specDir);
  const files = new Map<string, string>();
  const messages = specs.map((spec) => {
    try {
      const message = resolveMessage(spec);
      files.set(`${message.name}.ts`, emitMessage(message));
      return message;
    } catch (err) {
      throw new Error(`${spec.name}: ${(err as Error).message}`);
    }
  });
  files.set('index.ts', emitIndex(messages));
  files.set('schemas.ts', emitSchemas(specs));
  return files;
}
