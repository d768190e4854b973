// The console's Schemas page in Debian's chromium against a real broker's schema registry: subjects,
// versions and schemas as registered over the REST API, and the compatibility check's verdicts.
import { describe, expect, it } from 'vitest';
import { consoleForBlock } from '../helpers/console-browser.js';

const CT = 'application/vnd.schemaregistry.v1+json';
const v1 = { type: 'record', name: 'Order', fields: [{ name: 'id', type: 'string' }] };
const v2 = { ...v1, fields: [...v1.fields, { name: 'note', type: 'string', default: '' }] };

describe('console Schemas page', () => {
  const setup = consoleForBlock({ overrides: ['kafkite.schema.registry.enable=true'] });

  it('lists subjects, shows each version, and checks a candidate against the latest', async () => {
    const { browser, base } = setup();
    for (const schema of [v1, v2]) {
      const res = await fetch(`${base}/subjects/orders-value/versions`, { method: 'POST', headers: { 'content-type': CT }, body: JSON.stringify({ schema: JSON.stringify(schema) }) });
      expect(res.status).toBe(200);
    }
    const page = await browser.context.newPage();
    await page.goto(`${base}/`);
    await page.getByRole('link', { name: 'Schemas' }).click();
    await page.getByRole('link', { name: 'orders-value' }).click();
    await page.getByRole('heading', { name: 'orders-value' }).waitFor();
    await page.getByText('Compatibility: BACKWARD').waitFor();
    const schema = page.locator('pre.schema');
    await expect.poll(() => schema.textContent()).toContain('"note"');
    expect(await page.getByText('Id 2, AVRO').count()).toBe(1);
    await page.getByLabel('Version').selectOption('1');
    await expect.poll(() => schema.textContent()).not.toContain('"note"');
    await page.getByText('Id 1, AVRO').waitFor();

    const candidate = page.getByLabel('Candidate schema');
    const check = page.getByRole('button', { name: 'Check against the latest version' });
    await candidate.fill(JSON.stringify({ ...v1, fields: [{ name: 'id', type: 'long' }] }));
    await check.click();
    await page.getByText('Incompatible').waitFor();
    expect(await page.getByRole('alert').innerText()).toMatch(/BACKWARD/);
    await candidate.fill(JSON.stringify({ ...v2, fields: [...v2.fields, { name: 'n', type: 'int', default: 0 }] }));
    await check.click();
    await page.getByText('Compatible', { exact: true }).waitFor();
    // The check registered nothing: a second reader still sees two versions.
    expect(await (await fetch(`${base}/subjects/orders-value/versions`)).json()).toEqual([1, 2]);
  });
});

describe('console Schemas page without the registry', () => {
  const setup = consoleForBlock();

  it('says the registry is off', async () => {
    const { browser, base } = setup();
    const page = await browser.context.newPage();
    await page.goto(`${base}/#/schemas`);
    await page.getByText('The schema registry is off').waitFor();
  });
});
