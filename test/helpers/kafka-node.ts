// kafka-node 5.0.0 (a client of the Kafka 0.9-2.0 era: Produce v0-2, Fetch v0-2, message formats v0/v1)
// loaded for tests. Its snappy codec was written against snappy 6's callback API; npm hoists this
// project's snappy 7 (promises, same raw snappy format) where kafka-node looks, and snappy 6 is a
// native build CI does not make. So kafka-node's own codec code runs on snappy 7 through a callback
// adapter, which changes no bytes.
import Module, { createRequire } from 'node:module';
import snappy from 'snappy';
import type * as KafkaNode from 'kafka-node';

type Callback = (err: Error | null, out?: Buffer) => void;
const callbackSnappy = {
  compress(input: Buffer, cb: Callback): void {
    snappy.compress(input).then((out) => cb(null, out), cb);
  },
  uncompress(input: Buffer, options: unknown, cb?: Callback): void {
    const done = (typeof options === 'function' ? options : cb) as Callback;
    snappy.uncompress(input, { asBuffer: true }).then((out) => done(null, out as Buffer), done);
  },
};

const moduleLoader = Module as unknown as { _load(request: string, parent: { filename?: string } | null, isMain: boolean): unknown };
const load = moduleLoader._load;
moduleLoader._load = function (request, parent, isMain) {
  // Only kafka-node's optional('snappy') goes through the 'optional' package.
  if (request === 'snappy' && parent?.filename?.includes('/node_modules/optional/')) return callbackSnappy;
  return load.call(this, request, parent, isMain);
};

export const kafkaNode = createRequire(import.meta.url)('kafka-node') as typeof KafkaNode;

/** kafka-node's attributes: 0 none, 1 gzip, 2 snappy (it has no lz4 or zstd). */
export const KAFKA_NODE_CODECS = [['none', 0], ['gzip', 1], ['snappy', 2]] as const;

export function client(bootstrap: string, options: Partial<KafkaNode.KafkaClientOptions> & { versions?: { disabled?: boolean } } = {}): KafkaNode.KafkaClient {
  return new kafkaNode.KafkaClient({ kafkaHost: bootstrap, connectTimeout: 10_000, requestTimeout: 30_000, ...options } as KafkaNode.KafkaClientOptions);
}

export function ready(producer: KafkaNode.Producer): Promise<void> {
  return new Promise((resolve, reject) => {
    producer.once('ready', () => resolve());
    producer.once('error', reject);
  });
}

export function send(producer: KafkaNode.Producer, payloads: KafkaNode.ProduceRequest[]): Promise<unknown> {
  return new Promise((resolve, reject) => producer.send(payloads, (err, data) => (err ? reject(err) : resolve(data))));
}

export function close(c: { close(cb: () => void): void } | { close(force: boolean, cb: () => void): void }, force = true): Promise<void> {
  return new Promise((resolve) => {
    const closable = c as { close: (...args: unknown[]) => void };
    if (closable.close.length >= 2) closable.close(force, () => resolve());
    else closable.close(() => resolve());
  });
}
