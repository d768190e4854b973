// @platformatic/kafka consumers for tests: a streaming consumer that collects values, and a stop that
// closes the stream before the consumer (the client throws from a fetch scheduled on a closed consumer).
import { Consumer, stringDeserializers, type ConsumerOptions } from '@platformatic/kafka';

export interface StreamingConsumer {
  readonly consumer: Consumer<string, string, string, string>;
  stop(): Promise<void>;
}

export async function startStreamingConsumer(
  options: Omit<ConsumerOptions<string, string, string, string>, 'deserializers'>,
  topic: string,
  received: string[],
): Promise<StreamingConsumer> {
  const consumer = new Consumer({ ...options, deserializers: stringDeserializers });
  const stream = await consumer.consume({ topics: [topic], mode: 'committed', fallbackMode: 'earliest', autocommit: 100 });
  stream.on('data', (message) => received.push(message.value as string));
  return {
    consumer,
    async stop() {
      await stream.close().catch(() => undefined);
      await consumer.close(true).catch(() => undefined);
    },
  };
}
