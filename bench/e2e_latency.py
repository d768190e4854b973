"""End-to-end latency through kafkite with librdkafka (python3-confluent-kafka).

  e2e_latency.py consume BOOTSTRAP TOPIC RECORDS WARMUP   -> prints 'ready', then one JSON line
  e2e_latency.py produce BOOTSTRAP TOPIC RATE SECONDS RECORD_BYTES ACKS -> one JSON line (the rate achieved)

The producer sends RATE records/s, each value starting with its wall-clock send time (ns, big
endian), with linger.ms=0 so librdkafka's batching delay is not measured; the consumer (its own
process, same clock) records now - stamp for each record after the first WARMUP. The consumer
blocks in poll() for the first record available, then takes whatever else librdkafka has queued
without waiting (consume(timeout=0)), so a busy consumer keeps up at 100k records/s.
"""
import json
import struct
import sys
import time

from confluent_kafka import Consumer, Producer, TopicPartition


def consume(bootstrap, topic, records, warmup):
    consumer = Consumer({
        'bootstrap.servers': bootstrap,
        'group.id': 'kafkite-bench-e2e',
        'enable.auto.commit': False,
        'fetch.min.bytes': 1,
        'fetch.wait.max.ms': 500,
    })
    consumer.assign([TopicPartition(topic, 0, 0)])
    consumer.consume(num_messages=1, timeout=0.5)
    print('ready', flush=True)
    latencies = []
    received = 0
    deadline = time.time() + 120
    while received < records + warmup and time.time() < deadline:
        # poll() returns as soon as one record is there; consume(n) would wait for n or its timeout,
        # so the rest already queued is taken with a zero timeout.
        first = consumer.poll(0.1)
        if first is None:
            continue
        now = time.time_ns()
        for message in [first] + consumer.consume(num_messages=10000, timeout=0):
            if message.error():
                continue
            received += 1
            if received > warmup:
                latencies.append((now - struct.unpack_from('>q', message.value())[0]) / 1e6)
    consumer.close()
    latencies.sort()

    def pct(p):
        return round(latencies[min(len(latencies) - 1, max(0, int(len(latencies) * p + 0.999999) - 1))], 3) if latencies else None

    print(json.dumps({'records': len(latencies), 'p50Ms': pct(0.5), 'p99Ms': pct(0.99), 'p999Ms': pct(0.999), 'maxMs': pct(1)}), flush=True)


def produce(bootstrap, topic, rate, seconds, record_bytes, acks):
    producer = Producer({
        'bootstrap.servers': bootstrap,
        'acks': acks,
        'linger.ms': 0,
    })
    padding = b'x' * (record_bytes - 8)
    total = int(rate * seconds)
    sent = 0
    start = time.monotonic()
    while sent < total:
        due = min(total, int((time.monotonic() - start) * rate)) - sent
        for _ in range(due):
            while True:
                try:
                    producer.produce(topic, struct.pack('>q', time.time_ns()) + padding, partition=0)
                    break
                except BufferError:
                    # librdkafka's queue is full (the broker is behind): wait for deliveries, as a real
                    # producer does; the rate achieved then falls short of the rate asked.
                    producer.poll(0.001)
        sent += max(0, due)
        producer.poll(0)
        time.sleep(0.0002)
    elapsed = time.monotonic() - start
    left = producer.flush(30)
    # The rate asked for is only met if the sends kept to the schedule (elapsed ~ seconds).
    print(json.dumps({'sent': sent, 'seconds': round(elapsed, 3), 'recordsPerSec': round(sent / elapsed), 'undelivered': left}), flush=True)


if __name__ == '__main__':
    mode, bootstrap, topic = sys.argv[1:4]
    if mode == 'consume':
        consume(bootstrap, topic, int(sys.argv[4]), int(sys.argv[5]))
    else:
        produce(bootstrap, topic, float(sys.argv[4]), float(sys.argv[5]), int(sys.argv[6]), sys.argv[7])
