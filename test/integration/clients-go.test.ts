// The current Go clients from the Go module proxy (test/clients/go/go.mod pins them, go.sum checks them;
// .ci/run downloads them with test/clients/install.sh): franz-go (kgo, kadm), IBM/sarama configured as the
// newest Kafka it knows, and segmentio/kafka-go, each through test/helpers/client-matrix.ts's scenarios.
// Debian's sarama 1.22.1 keeps its own test (sarama.test.ts), with its version gates.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { describeClient } from '../helpers/client-matrix.js';
import { CLIENTS_DIR, goPins } from '../helpers/current-clients.js';
import { goBuild } from '../helpers/go-build.js';
import { runJsonClient } from '../helpers/json-client.js';

const PINS = goPins();

let broker: BrokerProcess;
let wire: WireClient;
let buildDir: string;
let binary: string;

beforeAll(async () => {
  buildDir = mkdtempSync(join(tmpdir(), 'kafkite-go-clients-'));
  binary = join(buildDir, 'clients');
  // One binary for the three clients; the Go build cache install.sh filled makes this a few seconds.
  await goBuild(join(CLIENTS_DIR, 'go'), binary);
  broker = await startBroker({ overrides: ['offsets.topic.num.partitions=3', 'transaction.state.log.num.partitions=3', 'group.initial.rebalance.delay.ms=0', 'auto.create.topics.enable=false'] });
  wire = await WireClient.connect(broker.port);
}, 330_000);

afterAll(async () => {
  wire?.close();
  if (broker) {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  }
  rmSync(buildDir, { recursive: true, force: true });
});

function program(client: string): (scenario: string, ...args: string[]) => Promise<any> {
  return (scenario, ...args) => runJsonClient(binary, [client, broker.bootstrap, scenario, ...args]);
}

describeClient(() => broker, () => wire, { name: 'franz-go', version: `${PINS.get('github.com/twmb/franz-go')} (kadm ${PINS.get('github.com/twmb/franz-go/pkg/kadm')})`, id: 'franz', run: program('franz'), groupProtocols: ['classic', 'consumer'], transactionVersions: [2, 2] });
describeClient(() => broker, () => wire, { name: 'IBM/sarama', version: PINS.get('github.com/IBM/sarama')!, id: 'sarama', run: program('sarama'), groupProtocols: ['classic'], transactionVersions: [1, 1] });
describeClient(() => broker, () => wire, { name: 'segmentio/kafka-go', version: PINS.get('github.com/segmentio/kafka-go')!, id: 'kafka-go', run: program('kafka-go'), groupProtocols: ['classic'], transactionVersions: null });
