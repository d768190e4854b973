// CLI: node dist/protocol/generator/generate.js [--lib DIR] [--out DIR]
// Regenerates protocol/generated/ from the message and record definitions in Kafka's jars (default: the
// jars scripts/kafka-jars.mjs brings into test/kafka/lib, fetched first when missing).
import { execFileSync } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generateFiles } from './generator.js';

// dist/protocol/generator/generate.js → the repository root.
const repoRoot = fileURLToPath(new URL('../../../', import.meta.url));

function option(args: string[], name: string): string | undefined {
  const at = args.indexOf(name);
  if (at < 0) return undefined;
  const value = args[at + 1];
  if (value === undefined) throw new Error(`${name} needs a directory`);
  return resolve(value);
}

function kafkaJars(): string {
  const printed = execFileSync(process.execPath, [join(repoRoot, 'scripts/kafka-jars.mjs')], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  return printed.trim().split('\n').at(-1)!;
}

const args = process.argv.slice(2);
const lib = option(args, '--lib') ?? kafkaJars();
const outDir = option(args, '--out') ?? join(repoRoot, 'protocol/generated');

const files = generateFiles(lib);
// The output directory belongs to the generator: drop modules for specs that no longer exist.
for (const folder of ['', 'records/']) {
  mkdirSync(join(outDir, folder), { recursive: true });
  for (const stale of readdirSync(join(outDir, folder)).filter((f) => f.endsWith('.ts') && !files.has(folder + f))) {
    rmSync(join(outDir, folder, stale));
  }
}
for (const [name, content] of files) writeFileSync(join(outDir, name), content);
console.log(`generated ${files.size} files in ${outDir}`);
