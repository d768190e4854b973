// protocol/generated/ must be exactly what the generator makes from the definitions in Kafka 4.4's jars
// (test/kafka/lib, always there after vitest's global setup): a hand edit or a stale regeneration fails here.
// Without the jars the generator throws and the test fails: it never skips.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generateFiles } from '../../protocol/generator/generator.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const lib = join(repoRoot, 'test/kafka/lib');
const committedDir = join(repoRoot, 'protocol/generated');

describe('generated code', () => {
  const tempDir = mkdtempSync(join(tmpdir(), 'kafkite-codegen-'));
  afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

  it('matches a fresh generation byte for byte', () => {
    mkdirSync(join(tempDir, 'records'));
    for (const [name, content] of generateFiles(lib)) writeFileSync(join(tempDir, name), content);
    const modules = (dir: string) => readdirSync(dir, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts')).sort();
    const fresh = modules(tempDir);
    expect(modules(committedDir)).toEqual(fresh);
    for (const name of fresh) {
      const same = readFileSync(join(tempDir, name)).equals(readFileSync(join(committedDir, name)));
      expect(same, `${name} differs: run npm run build && npm run generate`).toBe(true);
    }
  });

  it('is deterministic', () => {
    const first = generateFiles(lib);
    const second = generateFiles(lib);
    expect([...second.entries()]).toEqual([...first.entries()]);
  });
});
