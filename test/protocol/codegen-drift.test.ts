// protocol/generated/ must be exactly what the generator makes from Kafka's specs (CI keeps them at
// ../shared relative to the checkout): a hand edit or a stale regeneration fails here.
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { generateFiles } from '../../protocol/generator/generator.js';

const repoRoot = fileURLToPath(new URL('../../', import.meta.url));
const specDir = join(repoRoot, '../shared/kafka-message-specs');
const committedDir = join(repoRoot, 'protocol/generated');

describe('generated code', () => {
  const tempDir = mkdtempSync(join(tmpdir(), 'kafkite-codegen-'));
  afterAll(() => rmSync(tempDir, { recursive: true, force: true }));

  it.skipIf(!existsSync(specDir))('matches a fresh generation byte for byte', () => {
    for (const [name, content] of generateFiles(specDir)) writeFileSync(join(tempDir, name), content);
    const fresh = readdirSync(tempDir).sort();
    expect(readdirSync(committedDir).sort()).toEqual(fresh);
    for (const name of fresh) {
      const same = readFileSync(join(tempDir, name)).equals(readFileSync(join(committedDir, name)));
      expect(same, `${name} differs: run npm run build && npm run generate`).toBe(true);
    }
  });

  it.skipIf(!existsSync(specDir))('is deterministic', () => {
    const first = generateFiles(specDir);
    const second = generateFiles(specDir);
    expect([...second.entries()]).toEqual([...first.entries()]);
  });
});
