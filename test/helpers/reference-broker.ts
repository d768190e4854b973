// Apache Kafka 4.4 as a reference broker for a test file (bench/lib/reference-kafka.ts does the work).
import { afterAll, beforeAll, expect } from 'vitest';
import { ReferenceKafka, type ReferenceKafkaOptions } from '../../bench/lib/reference-kafka.js';

/**
 * One Kafka node for a test file: started before its tests, stopped after them and checked to exit cleanly: 143,
 * the JVM's exit status once its shutdown hooks (Kafka's controlled shutdown) have run after SIGTERM.
 */
export function referenceForFile(opts: ReferenceKafkaOptions = {}): () => ReferenceKafka {
  let kafka: ReferenceKafka | undefined;
  beforeAll(async () => {
    kafka = await ReferenceKafka.start(opts);
  }, 120_000);
  afterAll(async () => {
    if (!kafka) return;
    const code = await kafka.stop();
    kafka.cleanup();
    expect(code).toBe(143);
  }, 60_000);
  return () => kafka!;
}
