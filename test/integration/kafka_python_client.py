# kafka-python 2.0.2 (Debian's python3-kafka, a pure-Python client) against kafkite, driven by
# kafka-python.test.ts, which checks the disk and what a second client sees afterwards.
#   /usr/bin/python3 kafka_python_client.py <bootstrap> <scenario> [args...]
# Prints one JSON object on stdout: the scenario's result, or {"error": ...}.
import json
import sys

from kafka import KafkaAdminClient, KafkaConsumer, KafkaProducer, TopicPartition
from kafka.admin import ConfigResource, ConfigResourceType, NewPartitions, NewTopic

BOOTSTRAP = sys.argv[1]
SCENARIO = sys.argv[2]
ARGS = sys.argv[3:]
RECORDS = 200


def value(i):
    # Compressible, so that every codec pays and the batch is stored compressed.
    return ('record %d ' % i + 'the quick brown fox jumps over the lazy dog, ' * 8).encode()


def produce(topic, codec):
    """RECORDS keyed records with a header to partition 0, acks=all; the offsets the broker gave them."""
    producer = KafkaProducer(bootstrap_servers=BOOTSTRAP, acks='all', compression_type=None if codec == 'none' else codec,
                             linger_ms=20, batch_size=1 << 20)
    futures = [producer.send(topic, key=b'k%d' % i, value=value(i), headers=[('n', str(i).encode())], partition=0)
               for i in range(RECORDS)]
    producer.flush(30)
    offsets = [f.get(timeout=30).offset for f in futures]
    api_version = producer.config['api_version']
    producer.close()
    return {'offsets': offsets, 'apiVersion': list(api_version)}


def consume(topic, group):
    """Reads partition 0 in a consumer group from the earliest offset, commits, and reads the offsets back."""
    consumer = KafkaConsumer(topic, bootstrap_servers=BOOTSTRAP, group_id=group, auto_offset_reset='earliest',
                             enable_auto_commit=False, consumer_timeout_ms=10000)
    records = []
    for m in consumer:
        records.append(m)
        if len(records) == RECORDS:
            break
    consumer.commit()
    tp = TopicPartition(topic, 0)
    middle = records[len(records) // 2]
    found = consumer.offsets_for_times({tp: middle.timestamp})[tp]
    result = {
        'offsets': [m.offset for m in records],
        'timestamps': [m.timestamp for m in records],
        'matching': sum(1 for m in records if m.value == value(m.offset) and m.key == b'k%d' % m.offset
                        and m.headers == [('n', str(m.offset).encode())]),
        'committed': consumer.committed(tp),
        'endOffset': consumer.end_offsets([tp])[tp],
        'middleTimestamp': middle.timestamp,
        'offsetForMiddleTimestamp': found.offset if found else None,
    }
    consumer.close()
    return result


def create_topic(topic):
    """Creates a topic with a config, reads the config back, adds a partition, lists and describes the groups."""
    client = KafkaAdminClient(bootstrap_servers=BOOTSTRAP, client_id='kafka-python-admin')
    client.create_topics([NewTopic(topic, num_partitions=2, replication_factor=1, topic_configs={'retention.ms': '7200000'})])
    described = client.describe_configs([ConfigResource(ConfigResourceType.TOPIC, topic)])
    # DescribeConfigs v1+: resources of (error code, message, type, name, [(name, value, read only, source, sensitive, synonyms)]).
    entries = {e[0]: e[1] for r in described for res in r.resources for e in res[4]}
    client.create_partitions({topic: NewPartitions(total_count=3)})
    groups = sorted(g for g, _ in client.list_consumer_groups())
    described_groups = {g.group: g.state for g in client.describe_consumer_groups(groups)}
    client.close()
    return {'retentionMs': entries.get('retention.ms'), 'groups': described_groups}


def delete_topic(topic):
    client = KafkaAdminClient(bootstrap_servers=BOOTSTRAP, client_id='kafka-python-admin')
    client.delete_topics([topic])
    client.close()
    return {}


try:
    if SCENARIO == 'produce':
        print(json.dumps(produce(ARGS[0], ARGS[1])))
    elif SCENARIO == 'consume':
        print(json.dumps(consume(ARGS[0], ARGS[1])))
    elif SCENARIO == 'create-topic':
        print(json.dumps(create_topic(ARGS[0])))
    elif SCENARIO == 'delete-topic':
        print(json.dumps(delete_topic(ARGS[0])))
    else:
        print(json.dumps({'error': 'unknown scenario ' + SCENARIO}))
except Exception as e:  # reported to the test with the scenario's name
    print(json.dumps({'error': '%s: %s' % (type(e).__name__, e)}))
