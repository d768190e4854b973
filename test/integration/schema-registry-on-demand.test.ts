// The schema registry's modules (avsc, protobufjs) are loaded only when kafkite.schema.registry.enable is on:
// an idle broker with the admin HTTP on but the registry off never loads them (bench/startup.ts measures it).
// Checked on the modules the broker process itself loaded.
import { describe, expect, it } from 'vitest';
import { adminAddress, brokerForFile } from '../helpers/broker-process.js';
import { recordLoadedPackages } from '../helpers/loaded-packages.js';

const REGISTRY_PACKAGES = ['avsc', 'protobufjs'];

const off = recordLoadedPackages();
const brokerOff = brokerForFile({ nodeArgs: off.nodeArgs, env: off.env });
const on = recordLoadedPackages();
const brokerOn = brokerForFile({ nodeArgs: on.nodeArgs, env: on.env, overrides: ['kafkite.schema.registry.enable=true'] });

describe('schema registry modules on demand', () => {
  it('are not loaded by a broker with the registry off, whose admin HTTP still answers', async () => {
    const res = await fetch(`${adminAddress(brokerOff())}/v1/topics`);
    expect(res.status).toBe(200);
    const loaded = off.packages();
    expect(loaded.has('fastify')).toBe(true);
    expect(REGISTRY_PACKAGES.filter((p) => loaded.has(p))).toEqual([]);
    expect((await fetch(`${adminAddress(brokerOff())}/subjects`)).status).toBe(404);
  });

  it('are loaded by a broker with the registry on, which serves it', async () => {
    const res = await fetch(`${adminAddress(brokerOn())}/subjects/lazy-value/versions`, {
      method: 'POST',
      headers: { 'content-type': 'application/vnd.schemaregistry.v1+json' },
      body: JSON.stringify({ schema: JSON.stringify({ type: 'record', name: 'Lazy', fields: [{ name: 'a', type: 'int' }] }) }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: 1 });
    expect((await (await fetch(`${adminAddress(brokerOn())}/subjects`)).json())).toEqual(['lazy-value']);
    const loaded = on.packages();
    expect(REGISTRY_PACKAGES.filter((p) => loaded.has(p))).toEqual(REGISTRY_PACKAGES);
  });
});
