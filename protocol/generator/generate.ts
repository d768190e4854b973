// CLI: node dist/protocol/generator/generate.js [--specs DIR] [--out DIR]
// Regenerates protocol/generated/ from Kafka's message specs (default ../shared/kafka-message-specs).
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateFiles } from './generator.js';

// dist/protocol/generator/generate.js → the repository root.
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

function option(args: string[], name: string, fallback: string): string {
  const at = args.indexOf(name);
  if (at < 0) return fallback;
  const value = args[at + 1];
  if (value === undefined) throw new Error(`${name} needs a directory`);
  return resolve(value);
}

const args = process.argv.slice(2);
const specDir = option(args, '--specs', join(repoRoot, '../shared/kafka-message-specs'));
const outDir = option(args, '--out', join(repoRoot, 'protocol/generated'));

const files = generateFiles(specDir);
mkdirSync(outDir, { recursive: true });
// The output directory belongs to the generator: drop modules for specs that no longer exist.
for (const stale of readdirSync(outDir).filter((f) => f.endsWith('.ts') && !files.has(f))) {
  rmSync(join(outDir, stale));
}
for (const [name, content] of files) writeFileSync(join(outDir, name), content);
console.log(`generated ${files.size} files in ${outDir}`);
