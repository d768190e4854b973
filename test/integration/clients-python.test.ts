// The current Python clients from PyPI (test/clients/python/requirements.txt pins them; .ci/run installs
// them into a virtualenv, test/clients/install.sh): confluent-kafka with the librdkafka it bundles,
// kafka-python 3 and aiokafka, each through test/helpers/client-matrix.ts's scenarios. Debian's older
// kafka-python 2.0.2 and python3-confluent-kafka 1.7 keep their own tests (kafka-python.test.ts,
// transactions-librdkafka.test.ts).
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect } from 'vitest';
import { WireClient } from '../../bench/lib/wire-client.js';
import { startBroker, type BrokerProcess } from '../helpers/broker-process.js';
import { describeClient } from '../helpers/client-matrix.js';
import { CLIENTS_DIR, CLIENTS_VENV, pythonPins } from '../helpers/current-clients.js';
import { runJsonClient } from '../helpers/json-client.js';

const DIR = join(CLIENTS_DIR, 'python');
const PINS = pythonPins();
const PYTHON = join(CLIENTS_VENV, 'bin', 'python');

let broker: BrokerProcess;
let wire: WireClient;

beforeAll(async () => {
  if (!existsSync(PYTHON)) throw new Error(`${PYTHON} is missing: run bash test/clients/install.sh`);
  broker = await startBroker({ overrides: ['offsets.topic.num.partitions=3', 'transaction.state.log.num.partitions=3', 'group.initial.rebalance.delay.ms=0', 'auto.create.topics.enable=false'] });
  wire = await WireClient.connect(broker.port);
});

afterAll(async () => {
  wire?.close();
  if (broker) {
    expect(await broker.stop()).toBe(0);
    broker.cleanup();
  }
});

function program(file: string): (scenario: string, ...args: string[]) => Promise<any> {
  return (scenario, ...args) => runJsonClient(PYTHON, [join(DIR, file), broker.bootstrap, scenario, ...args]);
}

describeClient(() => broker, () => wire, { name: 'confluent-kafka', version: PINS.get('confluent-kafka')!, id: 'ck', run: program('confluent_kafka_client.py'), groupProtocols: ['classic', 'consumer'], transactionVersions: [1, 1] });
describeClient(() => broker, () => wire, { name: 'kafka-python', version: PINS.get('kafka-python')!, id: 'kp3', run: program('kafka_python_client.py'), groupProtocols: ['classic'], transactionVersions: [1, 1] });
describeClient(() => broker, () => wire, { name: 'aiokafka', version: PINS.get('aiokafka')!, id: 'aio', run: program('aiokafka_client.py'), groupProtocols: ['classic'], transactionVersions: [1, 1] });
