// ApiVersions advertises the handler table: every range must be one the specs define and Kafka calls stable.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/broker-process.js';
import { API_KEYS } from '../../protocol/generated/index.js';
import { HANDLERS } from '../../src/handlers/index.js';

describe('handler registry', () => {
  for (const handler of HANDLERS.values()) {
    it(`${handler.name} (${handler.apiKey}) advertises only valid, stable versions`, () => {
      const api = API_KEYS[handler.apiKey];
      expect(api?.name).toBe(handler.name);
      expect(handler.minVersion).toBeGreaterThanOrEqual(api!.minVersion);
      const latestStable = api!.latestVersionUnstable ? api!.maxVersion - 1 : api!.maxVersion;
      expect(handler.maxVersion).toBeLessThanOrEqual(latestStable);
      expect(handler.minVersion).toBeLessThanOrEqual(handler.maxVersion);
    });
  }
});

describe('README', () => {
  it('lists exactly the API keys and versions ApiVersions advertises', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Supported APIs'), readme.indexOf('\n## ', readme.indexOf('## Supported APIs') + 1));
    const listed = new Map<number, string>();
    for (const [, key, name, versions] of section.matchAll(/\|\s*(\d+)\s*\|\s*(\w+)\s*\|\s*([\d–]+)\s*(?=\|)/g)) listed.set(Number(key), `${name} ${versions}`);
    const advertised = new Map([...HANDLERS.values()].map((h) => [h.apiKey, `${h.name} ${h.minVersion === h.maxVersion ? h.minVersion : `${h.minVersion}–${h.maxVersion}`}`]));
    expect(Object.fromEntries(listed)).toEqual(Object.fromEntries(advertised));
  });
});
