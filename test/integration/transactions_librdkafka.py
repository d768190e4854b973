# librdkafka transactions against kafkite (Debian's python3-confluent-kafka), driven by
# transactions-librdkafka.test.ts, which checks the disk and what other clients see afterwards.
#   /usr/bin/python3 transactions_librdkafka.py <bootstrap> <scenario>
# Prints one JSON object on stdout.
import json
import sys
import time

from confluent_kafka import Consumer, KafkaException, Producer, TopicPartition

BOOTSTRAP = sys.argv[1]
SCENARIO = sys.argv[2]
TIMEOUT = 30


def transactional(transactional_id):
    p = Producer({'bootstrap.servers': BOOTSTRAP, 'transactional.id': transactional_id, 'transaction.timeout.ms': 60000})
    p.init_transactions(TIMEOUT)
    return p


def produce_all(producer, topic, values):
    for v in values:
        producer.produce(topic, value=v.encode(), partition=0)
    producer.flush(TIMEOUT)


def consume(topic, isolation, expected, group=None, timeout_s=15):
    """Values read from the start of partition 0, until `expected` arrive (plus a short grace) or the timeout."""
    c = Consumer({
        'bootstrap.servers': BOOTSTRAP, 'group.id': group or f'reader-{topic}-{isolation}-{time.time()}',
        'isolation.level': isolation, 'enable.auto.commit': False, 'auto.offset.reset': 'earliest',
    })
    c.assign([TopicPartition(topic, 0, 0)])
    values = []
    deadline = time.time() + timeout_s
    grace = None
    while time.time() < deadline and (grace is None or time.time() < grace):
        m = c.poll(0.2)
        if m is None or m.error():
            continue
        values.append(m.value().decode())
        if len(values) >= expected and grace is None:
            grace = time.time() + 1.0  # anything beyond what is expected shows up meanwhile
    c.close()
    return values


def commit_and_abort():
    p = transactional('py-txn')
    p.begin_transaction()
    produce_all(p, 'py-out', ['c1', 'c2', 'c3'])
    p.commit_transaction(TIMEOUT)
    p.begin_transaction()
    produce_all(p, 'py-out', ['a1', 'a2'])
    p.abort_transaction(TIMEOUT)
    p.begin_transaction()
    produce_all(p, 'py-out', ['c4'])
    p.commit_transaction(TIMEOUT)
    return {
        'readCommitted': consume('py-out', 'read_committed', 4),
        'readUncommitted': consume('py-out', 'read_uncommitted', 6),
    }


def consume_transform_produce():
    """Two rounds of read py-in, write upper-cased to py-ctp-out with the offsets in the transaction: commit, then abort."""
    plain = Producer({'bootstrap.servers': BOOTSTRAP})
    produce_all(plain, 'py-in', [f'in{i}' for i in range(6)])
    consumer = Consumer({
        'bootstrap.servers': BOOTSTRAP, 'group.id': 'py-ctp', 'isolation.level': 'read_committed',
        'enable.auto.commit': False, 'auto.offset.reset': 'earliest',
    })
    consumer.assign([TopicPartition('py-in', 0, 0)])
    producer = transactional('py-ctp-txn')
    outcomes = []
    for commit in (True, False):
        batch = []
        deadline = time.time() + 15
        while len(batch) < 3 and time.time() < deadline:
            m = consumer.poll(0.2)
            if m is not None and not m.error():
                batch.append(m)
        producer.begin_transaction()
        produce_all(producer, 'py-ctp-out', [m.value().decode().upper() for m in batch])
        positions = [TopicPartition('py-in', 0, batch[-1].offset() + 1)]
        producer.send_offsets_to_transaction(positions, consumer.consumer_group_metadata(), TIMEOUT)
        if commit:
            producer.commit_transaction(TIMEOUT)
        else:
            producer.abort_transaction(TIMEOUT)
        outcomes.append({'committed': commit, 'offsets': [m.offset() for m in batch]})
    consumer.close()
    # A second client: the group's committed offset and the output as read_committed sees it.
    checker = Consumer({'bootstrap.servers': BOOTSTRAP, 'group.id': 'py-ctp', 'enable.auto.commit': False})
    committed = checker.committed([TopicPartition('py-in', 0)], TIMEOUT)[0].offset
    checker.close()
    return {
        'rounds': outcomes,
        'committedOffset': committed,
        'output': consume('py-ctp-out', 'read_committed', 3),
        'outputUncommitted': consume('py-ctp-out', 'read_uncommitted', 6),
    }


try:
    result = {'commit-abort': commit_and_abort, 'ctp': consume_transform_produce}[SCENARIO]()
except KafkaException as e:
    result = {'error': str(e)}
print(json.dumps(result))
