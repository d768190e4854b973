# confluent-kafka (PyPI, with the librdkafka it bundles) against kafkite; the scenarios are common.py's.
import time

from common import GRACE, RECORDS, TIMEOUT, TXN_RECORDS, key, main, matching, value
from confluent_kafka import Consumer, Producer, TopicCollection, TopicPartition
from confluent_kafka.admin import AdminClient, NewTopic


def produce(bootstrap, topic, codec):
    p = Producer({'bootstrap.servers': bootstrap, 'acks': 'all', 'compression.type': codec, 'linger.ms': 20})
    offsets = []
    for i in range(RECORDS):
        p.produce(topic, key=key(i), value=value(i), partition=0, headers=[('n', str(i).encode())],
                  on_delivery=lambda err, m: offsets.append(-1 if err else m.offset()))
    p.flush(TIMEOUT)
    return {'offsets': sorted(offsets)}


def read(c, count, deadline_s=TIMEOUT):
    records = []
    deadline = time.time() + deadline_s
    while len(records) < count and time.time() < deadline:
        m = c.poll(0.5)
        if m is not None and not m.error():
            records.append((m.offset(), m.key(), m.value()))
    return records


def consume(bootstrap, topic, group, protocol):
    conf = {'bootstrap.servers': bootstrap, 'group.id': group, 'group.protocol': protocol,
            'auto.offset.reset': 'earliest', 'enable.auto.commit': False}
    c = Consumer(conf)
    c.subscribe([topic])
    records = read(c, RECORDS)
    c.commit(asynchronous=False)
    c.close()
    return {'offsets': [o for o, _, _ in records], 'matching': matching(records)}


def transact(bootstrap, topic, transactional_id):
    p = Producer({'bootstrap.servers': bootstrap, 'transactional.id': transactional_id})
    p.init_transactions(TIMEOUT)
    for outcome in ('committed', 'aborted'):
        p.begin_transaction()
        for i in range(TXN_RECORDS):
            p.produce(topic, value=b'%s-%d' % (outcome.encode(), i), partition=0)
        p.flush(TIMEOUT)
        (p.commit_transaction if outcome == 'committed' else p.abort_transaction)(TIMEOUT)
    return {}


def read_committed(bootstrap, topic):
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'unused', 'isolation.level': 'read_committed',
                  'enable.auto.commit': False})
    c.assign([TopicPartition(topic, 0, 0)])
    # Past the committed ones, a grace period in which aborted records would show up.
    records = read(c, TXN_RECORDS)
    records += read(c, 1, GRACE)
    c.close()
    return {'values': [v.decode() for _, _, v in records]}


def create_topic(bootstrap, topic):
    a = AdminClient({'bootstrap.servers': bootstrap})
    a.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)])[topic].result(TIMEOUT)
    described = a.describe_topics(TopicCollection([topic]))[topic].result(TIMEOUT)
    return {'partitions': len(described.partitions)}


def delete_topic(bootstrap, topic):
    a = AdminClient({'bootstrap.servers': bootstrap})
    a.delete_topics([topic])[topic].result(TIMEOUT)
    return {}


main({'produce': produce, 'consume': consume, 'transact': transact, 'read-committed': read_committed,
      'create-topic': create_topic, 'delete-topic': delete_topic})
