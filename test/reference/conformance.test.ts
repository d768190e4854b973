// Differential conformance (issue #27): every scenario of scenarios.ts runs against kafkite and against Apache
// Kafka 4.4, both started once for the file with the same server properties, and their answers are compared
// field by field. A difference is either listed in documented-differences.ts (and so in the README) or fails.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { ReferenceKafka } from '../../bench/lib/reference-kafka.js';
import { WireClient } from '../../bench/lib/wire-client.js';
import { REPO_ROOT, startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { listenerPorts } from '../helpers/secure-broker.js';
import { documentedMarkdown, pooled, runScenario, table, warmUp, type DocumentedDifference, type Scenario, type Target } from './differential.js';
import { DOCUMENTED_DIFFERENCES } from './documented-differences.js';
import { COLD_SCENARIOS, HAND_WRITTEN_SCENARIOS, minimalScenarios } from './scenarios.js';
import { SHARE_FETCH_SCENARIOS } from './share-fetch-scenarios.js';
import { SHARE_STATE_SCENARIOS } from './share-state-scenarios.js';

const SASL_USERS = { admin: 'admin-secret', alice: 'alice-secret' };
const JAAS = `org.apache.kafka.common.security.plain.PlainLoginModule required username="admin" password="admin-secret" ${Object.entries(SASL_USERS)
  .map(([u, p]) => `user_${u}="${p}"`).join(' ')};`;

/** The same properties for both brokers: a PLAINTEXT and a SASL_PLAINTEXT listener, ACLs, small limits. */
const PROPERTIES = [
  'listeners=PLAINTEXT://127.0.0.1:0,SASL_PLAINTEXT://127.0.0.1:0',
  'sasl.enabled.mechanisms=PLAIN',
  `listener.name.sasl_plaintext.plain.sasl.jaas.config=${JAAS}`,
  'authorizer.class.name=org.apache.kafka.metadata.authorizer.StandardAuthorizer',
  // ANONYMOUS is Kafka's principal on its PLAINTEXT CONTROLLER listener, which the node's own broker uses.
  'super.users=User:admin;User:ANONYMOUS',
  'auto.create.topics.enable=false',
  'num.partitions=1',
  'message.max.bytes=100000',
  'group.initial.rebalance.delay.ms=0',
];

let kafkite: BrokerProcess;
let kafka: ReferenceKafka;
let targets: { kafkite: Target; kafka: Target };

beforeAll(async () => {
  // kafkite starts from an empty file rather than config/server.properties, so both brokers have these properties alone.
  [kafkite, kafka] = await Promise.all([startBroker({ configFile: '/dev/null', overrides: PROPERTIES }), ReferenceKafka.start({ properties: PROPERTIES })]);
  targets = { kafkite: { name: 'kafkite', ports: listenerPorts(kafkite) }, kafka: { name: 'kafka', ports: kafka.ports } };
}, 120_000);

afterAll(async () => {
  const codes = await Promise.all([kafkite?.stop(), kafka?.stop()]);
  kafkite?.cleanup();
  kafka?.cleanup();
  // Both stop cleanly: kafkite exits 0, the JVM 143 once Kafka's shutdown hooks have run.
  expect(codes).toEqual([0, 143]);
}, 60_000);

it('answers every scenario as Kafka 4.4 does, or as documented', async () => {
  const started = performance.now();
  const client = await WireClient.connect(targets.kafkite.ports.PLAINTEXT!);
  const advertised = (await client.send(18, 3, { clientSoftwareName: 'conformance', clientSoftwareVersion: '1' })).apiKeys;
  client.close();
  const used = new Set<DocumentedDifference>();
  const run = (s: Scenario) => () => runScenario(s, targets.kafkite, targets.kafka, DOCUMENTED_DIFFERENCES, used);
  const results = await pooled(COLD_SCENARIOS.map(run), 1);
  await Promise.all([warmUp(targets.kafkite), warmUp(targets.kafka)]);
  const scenarios = [...COLD_SCENARIOS, ...minimalScenarios(advertised), ...HAND_WRITTEN_SCENARIOS, ...SHARE_STATE_SCENARIOS, ...SHARE_FETCH_SCENARIOS];
  results.push(...(await pooled(scenarios.filter((s) => !s.cold).map(run), 8)));
  console.log(`${table(results)}\n\n${scenarios.length} scenarios in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  const unused = DOCUMENTED_DIFFERENCES.filter((d) => !used.has(d));
  if (unused.length > 0) console.log(`documented but not seen in this run:\n${documentedMarkdown(unused)}`);
  const unexplained = results.filter((r) => r.unexplained.length > 0).map((r) => ({ scenario: r.scenario.id, differences: r.unexplained }));
  // CONFORMANCE_REPORT=file.json keeps every scenario's differences for a closer look.
  if (process.env.CONFORMANCE_REPORT) writeFileSync(process.env.CONFORMANCE_REPORT, JSON.stringify(results.map((r) => ({ ...r, scenario: r.scenario.id })), null, 1));
  // The differences go in the message, on one line: CI's summary quotes a failure's first lines.
  expect(unexplained, JSON.stringify(unexplained)).toEqual([]);
}, 300_000);

it('lists the documented differences in the README', () => {
  const file = join(REPO_ROOT, 'README.md');
  const readme = readFileSync(file, 'utf8');
  const section = /(<!-- conformance-differences: [^>]*-->\n)([\s\S]*?)(\n<!-- \/conformance-differences -->)/;
  const listed = documentedMarkdown(DOCUMENTED_DIFFERENCES);
  // CONFORMANCE_WRITE_README=1 rewrites the section from documented-differences.ts.
  if (process.env.CONFORMANCE_WRITE_README) writeFileSync(file, readme.replace(section, (_, open, _old, close) => `${open}${listed}${close}`));
  else expect(section.exec(readme)?.[2]).toBe(listed);
});
