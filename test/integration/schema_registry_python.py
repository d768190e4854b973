"""confluent-kafka-python's SchemaRegistryClient and its serializers against kafkite's schema registry.

Usage: schema_registry_python.py BOOTSTRAP REGISTRY_URL TOPIC [avro|json|protobuf]
Produces records with AvroSerializer, JSONSerializer or ProtobufSerializer (which registers the schema), consumes them back
with a fresh client and the matching deserializer (which fetches the schema by id), then tries an
incompatible change. Prints one JSON object; `error` when something failed.
"""
import json
import sys

from confluent_kafka import Consumer, Producer
from google.protobuf import descriptor_pb2, descriptor_pool, message_factory
from confluent_kafka.schema_registry import Schema, SchemaRegistryClient
from confluent_kafka.schema_registry.avro import AvroDeserializer, AvroSerializer
from confluent_kafka.schema_registry.error import SchemaRegistryError
from confluent_kafka.schema_registry.json_schema import JSONDeserializer, JSONSerializer
from confluent_kafka.schema_registry.protobuf import ProtobufDeserializer, ProtobufSerializer
from confluent_kafka.serialization import MessageField, SerializationContext

SCHEMA_V1 = json.dumps({"type": "record", "name": "Payment", "namespace": "shop",
                        "fields": [{"name": "id", "type": "string"}, {"name": "amount", "type": "double"}]})
SCHEMA_V2 = json.dumps({"type": "record", "name": "Payment", "namespace": "shop",
                        "fields": [{"name": "id", "type": "string"}, {"name": "amount", "type": "double"},
                                   {"name": "currency", "type": "string", "default": "EUR"}]})
INCOMPATIBLE = json.dumps({"type": "record", "name": "Payment", "namespace": "shop",
                           "fields": [{"name": "id", "type": "long"}]})
JSON_V1 = json.dumps({"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "integer"}},
                      "required": ["sku"]})
JSON_BAD = json.dumps({"type": "object", "properties": {"sku": {"type": "string"}, "qty": {"type": "string"}},
                       "required": ["sku"]})
PROTO_BAD = 'syntax = "proto3";\npackage shop;\nmessage Click { string page = 1; string ms = 2; }'
RECORDS = 20


def consume(bootstrap, topic, deserializer, count):
    """Reads `count` records of `topic` from the start with a new consumer, decoded by `deserializer`."""
    consumer = Consumer({"bootstrap.servers": bootstrap, "group.id": f"{topic}-reader", "auto.offset.reset": "earliest"})
    consumer.subscribe([topic])
    values = []
    while len(values) < count:
        msg = consumer.poll(10)
        if msg is None:
            raise RuntimeError(f"only {len(values)} records consumed")
        if msg.error():
            raise RuntimeError(str(msg.error()))
        values.append(deserializer(msg.value(), SerializationContext(topic, MessageField.VALUE)))
    consumer.close()
    return values


def refused(registry, subject, schema):
    """Registers an incompatible schema: its status and error code, or "registered"."""
    try:
        registry.register_schema(subject, schema)
        return "registered"
    except SchemaRegistryError as e:
        return {"status": e.http_status_code, "code": e.error_code}


def json_schema(bootstrap, url, topic):
    """JSONSerializer validates and registers, JSONDeserializer (no schema of its own) reads back by id."""
    subject = f"{topic}-value"
    registry = SchemaRegistryClient({"url": url})
    serializer = JSONSerializer(JSON_V1, registry)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for i in range(RECORDS):
        value = serializer({"sku": f"s{i}", "qty": i}, SerializationContext(topic, MessageField.VALUE))
        producer.produce(topic, value=value)
    assert producer.flush(30) == 0, "undelivered records"
    out = {"schemaIdInRecord": int.from_bytes(value[1:5], "big")}
    try:
        serializer({"qty": 1}, SerializationContext(topic, MessageField.VALUE))
        out["invalid"] = "serialized"
    except Exception as e:  # SerializationError: the record breaks the schema's "required"
        out["invalid"] = type(e).__name__
    out["consumed"] = consume(bootstrap, topic, JSONDeserializer(None, schema_registry_client=SchemaRegistryClient({"url": url})), RECORDS)
    latest = registry.get_latest_version(subject)
    out["latest"] = {"version": latest.version, "schemaId": latest.schema_id}
    out["compatibleBad"] = registry.test_compatibility(subject, Schema(JSON_BAD, "JSON"))
    out["incompatible"] = refused(registry, subject, Schema(JSON_BAD, "JSON"))
    return out


def click_class():
    """shop.Click {string page = 1; int64 ms = 2;} without protoc: a FileDescriptorProto built by hand."""
    field = descriptor_pb2.FieldDescriptorProto
    proto = descriptor_pb2.FileDescriptorProto(name="shop/click.proto", package="shop", syntax="proto3")
    message = proto.message_type.add(name="Click")
    message.field.add(name="page", number=1, type=field.TYPE_STRING, label=field.LABEL_OPTIONAL)
    message.field.add(name="ms", number=2, type=field.TYPE_INT64, label=field.LABEL_OPTIONAL)
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return message_factory.GetMessageClass(pool.FindMessageTypeByName("shop.Click"))


def protobuf(bootstrap, url, topic):
    """ProtobufSerializer registers a base64 FileDescriptorProto; ProtobufDeserializer fetches it with ?format=serialized."""
    subject = f"{topic}-value"
    click = click_class()
    registry = SchemaRegistryClient({"url": url})
    serializer = ProtobufSerializer(click, registry)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for i in range(RECORDS):
        value = serializer(click(page=f"/p{i}", ms=i * 10), SerializationContext(topic, MessageField.VALUE))
        producer.produce(topic, value=value)
    assert producer.flush(30) == 0, "undelivered records"
    out = {"schemaIdInRecord": int.from_bytes(value[1:5], "big")}
    deserializer = ProtobufDeserializer(click, None, SchemaRegistryClient({"url": url}))
    out["consumed"] = [{"page": m.page, "ms": m.ms} for m in consume(bootstrap, topic, deserializer, RECORDS)]
    latest = registry.get_latest_version(subject)
    out["latest"] = {"version": latest.version, "schemaId": latest.schema_id}
    out["compatibleBad"] = registry.test_compatibility(subject, Schema(PROTO_BAD, "PROTOBUF"))
    out["incompatible"] = refused(registry, subject, Schema(PROTO_BAD, "PROTOBUF"))
    return out


def main():
    bootstrap, url, topic = sys.argv[1:4]
    kind = sys.argv[4] if len(sys.argv) > 4 else "avro"
    if kind in ("json", "protobuf"):
        print(json.dumps((json_schema if kind == "json" else protobuf)(bootstrap, url, topic)))
        return
    subject = f"{topic}-value"
    out = {}
    producer_registry = SchemaRegistryClient({"url": url})
    serializer = AvroSerializer(producer_registry, SCHEMA_V1)
    producer = Producer({"bootstrap.servers": bootstrap, "acks": "all"})
    for i in range(RECORDS):
        value = serializer({"id": f"p{i}", "amount": i * 1.5}, SerializationContext(topic, MessageField.VALUE))
        producer.produce(topic, value=value)
    assert producer.flush(30) == 0, "undelivered records"
    out["schemaIdInRecord"] = int.from_bytes(value[1:5], "big")

    # The evolved schema through the serializer too: registered as version 2.
    serializer2 = AvroSerializer(producer_registry, SCHEMA_V2)
    producer.produce(topic, value=serializer2({"id": "p-v2", "amount": 9.0, "currency": "USD"}, SerializationContext(topic, MessageField.VALUE)))
    assert producer.flush(30) == 0, "undelivered records"

    # A fresh registry client: every id is a cache miss, answered by GET /schemas/ids/{id}.
    out["consumed"] = consume(bootstrap, topic, AvroDeserializer(SchemaRegistryClient({"url": url})), RECORDS + 1)

    latest = producer_registry.get_latest_version(subject)
    out["latest"] = {"version": latest.version, "schemaId": latest.schema_id}
    out["versions"] = producer_registry.get_versions(subject)
    out["compatibleV2"] = producer_registry.test_compatibility(subject, Schema(SCHEMA_V2, "AVRO"))
    out["compatibleBad"] = producer_registry.test_compatibility(subject, Schema(INCOMPATIBLE, "AVRO"))
    out["incompatible"] = refused(producer_registry, subject, Schema(INCOMPATIBLE, "AVRO"))
    try:
        SchemaRegistryClient({"url": url}).get_schema(9999)
    except SchemaRegistryError as e:
        out["missingId"] = {"status": e.http_status_code, "code": e.error_code}
    print(json.dumps(out))


if __name__ == "__main__":
    try:
        main()
    except Exception as e:  # the test reads the error from the JSON
        print(json.dumps({"error": f"{type(e).__name__}: {e}"}))
