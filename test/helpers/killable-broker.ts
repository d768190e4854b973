// A broker a test can kill with SIGKILL and start again on the same data dir and port: kafkite, or Apache Kafka 4.4
// itself (one KRaft node), so that one scenario runs against both (the share-group kill scenarios, issue 29).
import { ReferenceKafka } from '../../bench/lib/reference-kafka.js';
import { killAndRestart, startBroker } from './broker-process.js';
import { untilLeading } from './share-consumers.js';

export interface KillableBroker {
  readonly port: number;
  readonly bootstrap: string;
  /** SIGKILL, then a restart on the same data dir and port, serving again and leading `topics`' partitions. */
  killAndRestart(topics: string[]): Promise<void>;
  stop(): Promise<void>;
}

/** kafkite, started with `overrides` (server.properties lines), again at each restart. */
export async function killableKafkite(overrides: string[] = []): Promise<KillableBroker> {
  let broker = await startBroker({ overrides });
  return {
    port: broker.port,
    bootstrap: broker.bootstrap,
    async killAndRestart() {
      broker = await killAndRestart(broker, { overrides });
    },
    async stop() {
      await broker.stop();
      broker.cleanup();
    },
  };
}

/** Kafka 4.4, started with `properties` (kept in its server.properties for the restarts). */
export async function killableKafka(properties: string[] = []): Promise<KillableBroker> {
  let node = await ReferenceKafka.start({ readyTimeoutMs: 90_000, properties });
  return {
    port: node.port,
    bootstrap: `127.0.0.1:${node.port}`,
    async killAndRestart(topics) {
      await node.kill();
      node = await node.restart({ readyTimeoutMs: 90_000 });
      // Serving Metadata is not leading yet: the controller elects the node again for the partitions it led once it
      // is unfenced (KRaft's ReplicationControlManager). The consumers resume on the node as leader of the topics'
      // partitions and of __share_group_state's, where the share coordinator (ShareCoordinatorService) reads its state.
      await untilLeading(node.port, [...topics, '__share_group_state']);
    },
    async stop() {
      await node.stop();
      node.cleanup();
    },
  };
}
