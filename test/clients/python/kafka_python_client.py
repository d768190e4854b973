# kafka-python 3 (PyPI), the pure-Python client, against kafkite; the scenarios are common.py's. Its groups
# are classic only.
import time

from common import GRACE, RECORDS, TIMEOUT, TXN_RECORDS, key, main, matching, value
from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import NewTopic


def produce(bootstrap, topic, codec):
    p = KafkaProducer(bootstrap_servers=bootstrap, acks='all', compression_type=None if codec == 'none' else codec,
                      linger_ms=20, batch_size=1 << 20)
    futures = [p.send(topic, key=key(i), value=value(i), headers=[('n', str(i).encode())], partition=0)
               for i in range(RECORDS)]
    p.flush(TIMEOUT)
    offsets = [f.get(timeout=TIMEOUT).offset for f in futures]
    p.close()
    return {'offsets': offsets}


def read(c, count):
    records = []
    for m in c:
        records.append((m.offset, m.key, m.value))
        if len(records) == count:
            break
    return records


def consume(bootstrap, topic, group, protocol):
    assert protocol == 'classic', protocol
    c = KafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group, auto_offset_reset='earliest',
                      enable_auto_commit=False, consumer_timeout_ms=TIMEOUT * 1000)
    records = read(c, RECORDS)
    c.commit()
    c.close()
    return {'offsets': [o for o, _, _ in records], 'matching': matching(records)}


def transact(bootstrap, topic, transactional_id):
    p = KafkaProducer(bootstrap_servers=bootstrap, transactional_id=transactional_id)
    p.init_transactions()
    for outcome in ('committed', 'aborted'):
        p.begin_transaction()
        for i in range(TXN_RECORDS):
            p.send(topic, value=b'%s-%d' % (outcome.encode(), i), partition=0)
        p.flush(TIMEOUT)
        (p.commit_transaction if outcome == 'committed' else p.abort_transaction)()
    p.close()
    return {}


def read_committed(bootstrap, topic):
    c = KafkaConsumer(bootstrap_servers=bootstrap, isolation_level='read_committed', auto_offset_reset='earliest',
                      enable_auto_commit=False)
    c.assign([TopicPartition(topic, 0)])
    # Past the committed ones, a grace period in which aborted records would show up.
    values = poll_values(c, TXN_RECORDS, TIMEOUT) + poll_values(c, 1, GRACE)
    c.close()
    return {'values': values}


def poll_values(c, count, timeout_s):
    values = []
    deadline = time.time() + timeout_s
    while len(values) < count and time.time() < deadline:
        for records in c.poll(timeout_ms=200).values():
            values += [m.value.decode() for m in records]
    return values


def create_topic(bootstrap, topic):
    a = KafkaAdminClient(bootstrap_servers=bootstrap)
    a.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)])
    described = a.describe_topics([topic])
    a.close()
    return {'partitions': len(described[0]['partitions'])}


def delete_topic(bootstrap, topic):
    a = KafkaAdminClient(bootstrap_servers=bootstrap)
    a.delete_topics([topic])
    a.close()
    return {}


main({'produce': produce, 'consume': consume, 'transact': transact, 'read-committed': read_committed,
      'create-topic': create_topic, 'delete-topic': delete_topic})
