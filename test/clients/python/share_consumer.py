# confluent-kafka's ShareConsumer (librdkafka's KIP-932 share consumer, a preview since librdkafka 2.15) against
# kafkite, for test/integration/share-consumer-librdkafka.test.ts:
#   python share_consumer.py <bootstrap> work <topic> <group> <n>
# Two ShareConsumers of one share group, polled in turn, acknowledge each record explicitly by its value
# (v % 10 == 3: RELEASE on its first delivery, ACCEPT after; v % 10 == 7: REJECT; else ACCEPT) and commit_sync after
# each poll, until n records are accepted or rejected. Prints the events in order: ["recv", consumer, partition,
# offset, delivery count] and ["ack", consumer, partition, offset, type] once the broker confirmed it.
import time

from common import TIMEOUT, main
from confluent_kafka import AcknowledgeType, ShareConsumer, libversion


def work(bootstrap, topic, group, n):
    n = int(n)
    consumers = [ShareConsumer({'bootstrap.servers': bootstrap, 'group.id': group, 'share.acknowledgement.mode': 'explicit'})
                 for _ in range(2)]
    for c in consumers:
        c.subscribe([topic])
    events = []
    decided = 0
    deadline = time.time() + 90
    try:
        while decided < n and time.time() < deadline:
            for i, c in enumerate(consumers):
                acked = []
                for m in c.poll(0.5):
                    if m.error():
                        raise Exception(str(m.error()))
                    count = m.delivery_count()
                    v = int(m.value())
                    events.append(['recv', i, m.partition(), m.offset(), count])
                    t = AcknowledgeType.REJECT if v % 10 == 7 else AcknowledgeType.RELEASE if v % 10 == 3 and count == 1 else AcknowledgeType.ACCEPT
                    c.acknowledge(m, t)
                    acked.append((m, t))
                if not acked:
                    continue
                failed = [str(e) for e in c.commit_sync(TIMEOUT).values() if e is not None]
                if failed:
                    raise Exception('commit_sync: %s' % failed)
                for m, t in acked:
                    events.append(['ack', i, m.partition(), m.offset(), t.name])
                    decided += t != AcknowledgeType.RELEASE
    finally:
        for c in consumers:
            c.close()
    return {'events': events, 'decided': decided, 'librdkafka': libversion()[0]}


if __name__ == '__main__':
    main({'work': work})
