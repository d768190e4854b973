#!/usr/bin/env node
// Brings Apache Kafka 4.4.0 (test/kafka/pom.xml) and its dependencies into test/kafka/lib with Maven, once per
// version of the pom: the reference broker, Kafka's tools and clients, and the jars whose JSON definitions the
// protocol generator reads. Maven caches the downloads in ~/.m2. Prints the folder. Used by vitest's global
// setup, the generator and the benchmarks; `node scripts/kafka-jars.mjs` runs it by hand.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const kafkaDir = join(dirname(fileURLToPath(import.meta.url)), '..', 'test', 'kafka');

/** Returns test/kafka/lib, fetching it first if the pom changed since the last fetch. */
export function ensureKafkaJars() {
  const pom = join(kafkaDir, 'pom.xml');
  const lib = join(kafkaDir, 'lib');
  const stamp = join(lib, '.pom-sha256');
  const digest = createHash('sha256').update(readFileSync(pom)).digest('hex');
  if (existsSync(stamp) && readFileSync(stamp, 'utf8') === digest) return lib;
  rmSync(lib, { recursive: true, force: true });
  execFileSync('mvn', ['-q', '-B', '-Dstyle.color=never', '-f', pom, 'dependency:copy-dependencies', `-DoutputDirectory=${lib}`], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  writeFileSync(stamp, digest);
  return lib;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) console.log(ensureKafkaJars());
