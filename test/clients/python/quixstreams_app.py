# A quixstreams application against kafkite (test/integration/quixstreams.test.ts drives it), run from its own
# virtualenv (test/clients/install.sh: quixstreams pins confluent-kafka below the clients' venv's). Run as
#   python quixstreams_app.py <bootstrap> <scenario> [args...]
# it prints one JSON object on stdout (common.py's main).
#   run <group> <input> <output> <state_dir> <delay_ms>: counts the input's records per key, with its state in a RocksDB
#     store backed by a changelog topic, and writes each key's running count to the output, exactly once
#     (processing_guarantee="exactly-once": Kafka transactions); runs until SIGTERM or SIGKILL. delay_ms slows
#     each record down, so that a kill falls inside a transaction.
#   read <topic> <isolation>: every record of the topic, read with isolation.level <isolation>, as
#     [partition, key, value].
import time

from common import main
from confluent_kafka import Consumer, TopicPartition
from quixstreams import Application


def run(bootstrap, group, input_topic, output_topic, state_dir, delay_ms):
    app = Application(
        broker_address=bootstrap,
        consumer_group=group,
        processing_guarantee='exactly-once',
        auto_offset_reset='earliest',
        state_dir=state_dir,
        # A killed instance's partitions come back to the next one after 6 s rather than librdkafka's 45 s.
        consumer_extra_config={'session.timeout.ms': 6000, 'heartbeat.interval.ms': 1000},
        # Each instance has a transactional.id of its own (quixstreams' default, a random one), so a killed
        # instance's open transaction is not fenced by the next: the broker aborts it when it times out, and
        # until then it holds back the output's last stable offset and the input's committed offsets.
        producer_extra_config={'transaction.timeout.ms': 10000},
        commit_interval=0.5,
    )
    counts = app.dataframe(app.topic(input_topic, key_deserializer='str', value_deserializer='str'))

    def count(_value, state):
        time.sleep(int(delay_ms) / 1000)
        n = state.get('count', 0) + 1
        state.set('count', n)
        return n

    counts = counts.apply(count, stateful=True)
    counts.to_topic(app.topic(output_topic, key_serializer='str', value_serializer='json'))
    app.run()
    return {'stopped': True}


def read(bootstrap, topic, isolation):
    c = Consumer({'bootstrap.servers': bootstrap, 'group.id': 'quix-reader', 'isolation.level': isolation,
                  'enable.auto.commit': False})
    partitions = c.list_topics(topic, timeout=30).topics[topic].partitions
    records = []
    for p in partitions:
        _, end = c.get_watermark_offsets(TopicPartition(topic, p), timeout=30)
        if end == 0:
            continue
        c.assign([TopicPartition(topic, p, 0)])
        # Up to the high watermark, or until nothing comes for 3 s: past the last stable offset (an open
        # transaction) read_committed delivers nothing.
        idle_since = time.time()
        while c.position([TopicPartition(topic, p)])[0].offset < end and time.time() - idle_since < 3:
            m = c.poll(0.2)
            if m is not None and not m.error():
                idle_since = time.time()
                records.append([p, m.key().decode(), int(m.value())])
    c.close()
    return {'records': records}


main({'run': run, 'read': read})
