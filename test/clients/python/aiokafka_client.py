# aiokafka (PyPI), the asyncio client, against kafkite; the scenarios are common.py's. Its groups are
# classic only.
import asyncio

from aiokafka import AIOKafkaConsumer, AIOKafkaProducer, TopicPartition
from aiokafka.admin import AIOKafkaAdminClient, NewTopic
from common import GRACE, RECORDS, TIMEOUT, TXN_RECORDS, key, main, matching, value


async def produce(bootstrap, topic, codec):
    p = AIOKafkaProducer(bootstrap_servers=bootstrap, acks='all', compression_type=None if codec == 'none' else codec,
                         linger_ms=20, max_batch_size=1 << 20)
    await p.start()
    try:
        futures = [await p.send(topic, key=key(i), value=value(i), headers=[('n', str(i).encode())], partition=0)
                   for i in range(RECORDS)]
        offsets = [(await f).offset for f in futures]
    finally:
        await p.stop()
    return {'offsets': offsets}


async def read(c, count, timeout_s=TIMEOUT):
    records = []
    try:
        async with asyncio.timeout(timeout_s):
            async for m in c:
                records.append((m.offset, m.key, m.value))
                if len(records) == count:
                    break
    except TimeoutError:
        pass
    return records


async def consume(bootstrap, topic, group, protocol):
    assert protocol == 'classic', protocol
    c = AIOKafkaConsumer(topic, bootstrap_servers=bootstrap, group_id=group, auto_offset_reset='earliest',
                         enable_auto_commit=False)
    await c.start()
    try:
        records = await read(c, RECORDS)
        await c.commit()
    finally:
        await c.stop()
    return {'offsets': [o for o, _, _ in records], 'matching': matching(records)}


async def transact(bootstrap, topic, transactional_id):
    p = AIOKafkaProducer(bootstrap_servers=bootstrap, transactional_id=transactional_id)
    await p.start()
    try:
        for outcome in ('committed', 'aborted'):
            await p.begin_transaction()
            for i in range(TXN_RECORDS):
                await p.send_and_wait(topic, value=b'%s-%d' % (outcome.encode(), i), partition=0)
            await (p.commit_transaction() if outcome == 'committed' else p.abort_transaction())
    finally:
        await p.stop()
    return {}


async def read_committed(bootstrap, topic):
    c = AIOKafkaConsumer(bootstrap_servers=bootstrap, isolation_level='read_committed', auto_offset_reset='earliest',
                         enable_auto_commit=False)
    await c.start()
    try:
        c.assign([TopicPartition(topic, 0)])
        # Past the committed ones, a grace period in which aborted records would show up.
        records = await read(c, TXN_RECORDS) + await read(c, 1, GRACE)
    finally:
        await c.stop()
    return {'values': [v.decode() for _, _, v in records]}


async def create_topic(bootstrap, topic):
    a = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await a.start()
    try:
        await a.create_topics([NewTopic(topic, num_partitions=3, replication_factor=1)])
        described = await a.describe_topics([topic])
    finally:
        await a.close()
    return {'partitions': len(described[0]['partitions'])}


async def delete_topic(bootstrap, topic):
    a = AIOKafkaAdminClient(bootstrap_servers=bootstrap)
    await a.start()
    try:
        await a.delete_topics([topic])
    finally:
        await a.close()
    return {}


def sync(f):
    return lambda *args: asyncio.run(f(*args))


main({'produce': sync(produce), 'consume': sync(consume), 'transact': sync(transact),
      'read-committed': sync(read_committed), 'create-topic': sync(create_topic), 'delete-topic': sync(delete_topic)})
