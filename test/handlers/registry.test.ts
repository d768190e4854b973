// ApiVersions advertises the handler table: every range must be one the specs define and Kafka calls stable.
import { describe, expect, it } from 'vitest';
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
