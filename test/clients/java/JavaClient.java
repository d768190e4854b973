// The Java client (kafka-clients 4.4) against kafkite, for test/integration/java-client.test.ts: every scenario
// named on the command line runs in this one JVM (start-up is the slow part), and the program prints one JSON
// object, scenario name -> what it saw (or {"error": ...}). The test checks the broker's side: disk, a second client.
//
//   java -cp 'test/kafka/lib/*:<classes>' JavaClient <bootstrap> <sasl bootstrap> <scenario>...
import com.fasterxml.jackson.databind.ObjectMapper;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.ExecutionException;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.clients.producer.*;
import org.apache.kafka.common.*;
import org.apache.kafka.common.acl.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.header.Header;
import org.apache.kafka.common.resource.*;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;

public class JavaClient {
  static final int RECORDS = 100;
  static final String[] CODECS = {"none", "gzip", "snappy", "lz4", "zstd"};
  static String bootstrap;
  static String saslBootstrap;

  public static void main(String[] args) throws Exception {
    bootstrap = args[0];
    saslBootstrap = args[1];
    Map<String, Object> out = new LinkedHashMap<>();
    for (String scenario : Arrays.copyOfRange(args, 2, args.length)) {
      try {
        out.put(scenario, run(scenario));
      } catch (Exception e) {
        Throwable cause = e instanceof ExecutionException && e.getCause() != null ? e.getCause() : e;
        out.put(scenario, Map.of("error", cause.getClass().getSimpleName() + ": " + cause.getMessage()));
      }
    }
    System.out.println(new ObjectMapper().writeValueAsString(out));
  }

  static Object run(String scenario) throws Exception {
    switch (scenario) {
      case "produce": return produce();
      case "consume-classic": return consume("classic", "java-none", "java-g-classic");
      case "consume-consumer": return consume("consumer", "java-gzip", "java-g-consumer");
      case "transactions": return transactions();
      case "admin": return admin();
      case "security": return security();
      default: throw new IllegalArgumentException("unknown scenario " + scenario);
    }
  }

  static Properties common(String servers) {
    Properties p = new Properties();
    p.put("bootstrap.servers", servers);
    p.put("client.id", "java-client");
    return p;
  }

  static KafkaProducer<String, String> producer(Properties extra) {
    Properties p = common(bootstrap);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.putAll(extra);
    return new KafkaProducer<>(p);
  }

  static KafkaConsumer<String, String> consumer(Properties extra) {
    Properties p = common(bootstrap);
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    p.put("auto.offset.reset", "earliest");
    p.put("enable.auto.commit", "false");
    p.putAll(extra);
    return new KafkaConsumer<>(p);
  }

  static Admin admin(String servers) {
    return Admin.create(common(servers));
  }

  /** Compressible, so that every codec shrinks a batch. */
  static String value(int i) {
    return "record " + i + " " + "the quick brown fox jumps over the lazy dog, ".repeat(12);
  }

  /** The idempotent producer (the default since 3.0), one topic per codec, acks=all. */
  static Object produce() throws Exception {
    Map<String, Object> result = new LinkedHashMap<>();
    for (String codec : CODECS) {
      Properties p = new Properties();
      p.put("compression.type", codec);
      p.put("enable.idempotence", "true");
      p.put("acks", "all");
      p.put("linger.ms", "20");
      List<Long> offsets = new ArrayList<>();
      try (KafkaProducer<String, String> producer = producer(p)) {
        List<java.util.concurrent.Future<RecordMetadata>> sent = new ArrayList<>();
        for (int i = 0; i < RECORDS; i++) {
          ProducerRecord<String, String> r = new ProducerRecord<>("java-" + codec, 0, "key-" + i, value(i));
          r.headers().add("h", ("header-" + i).getBytes());
          sent.add(producer.send(r));
        }
        for (var f : sent) offsets.add(f.get().offset());
      }
      result.put(codec, offsets);
    }
    return result;
  }

  /** A group consumer under one protocol: reads the topic, commits, and the group as Admin describes it. */
  static Object consume(String protocol, String topic, String group) throws Exception {
    Properties p = new Properties();
    p.put("group.id", group);
    p.put("group.protocol", protocol);
    List<Long> offsets = new ArrayList<>();
    int matching = 0;
    Map<String, Object> result = new LinkedHashMap<>();
    try (KafkaConsumer<String, String> consumer = consumer(p); Admin admin = admin(bootstrap)) {
      consumer.subscribe(List.of(topic));
      long deadline = System.currentTimeMillis() + 30_000;
      while (offsets.size() < RECORDS && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) {
          offsets.add(r.offset());
          int i = (int) r.offset();
          Header h = r.headers().lastHeader("h");
          if (("key-" + i).equals(r.key()) && value(i).equals(r.value()) && h != null && new String(h.value()).equals("header-" + i)) matching++;
        }
      }
      consumer.commitSync();
      result.put("offsets", offsets);
      result.put("matching", matching);
      result.put("assignment", consumer.assignment().stream().map(TopicPartition::toString).sorted().toList());
      ConsumerGroupDescription d = admin.describeConsumerGroups(List.of(group)).all().get().get(group);
      result.put("type", d.type().toString());
      result.put("state", d.groupState().toString());
      result.put("members", d.members().size());
    }
    return result;
  }

  /**
   * Transactions as the 4.4 client runs them (transaction version 2 when the broker finalizes it): one committed,
   * with a group's offsets in it, one aborted; a read_committed consumer then sees only the committed records.
   */
  static Object transactions() throws Exception {
    Map<String, Object> result = new LinkedHashMap<>();
    Properties p = new Properties();
    p.put("transactional.id", "java-txn");
    p.put("compression.type", "lz4");
    Properties g = new Properties();
    g.put("group.id", "java-txn-group");
    try (KafkaProducer<String, String> producer = producer(p); KafkaConsumer<String, String> group = consumer(g)) {
      producer.initTransactions();
      producer.beginTransaction();
      for (int i = 0; i < 10; i++) producer.send(new ProducerRecord<>("java-txn", 0, "k", "committed-" + i));
      producer.sendOffsetsToTransaction(Map.of(new TopicPartition("java-none", 0), new OffsetAndMetadata(42)),
          group.groupMetadata());
      producer.commitTransaction();
      producer.beginTransaction();
      for (int i = 0; i < 10; i++) producer.send(new ProducerRecord<>("java-txn", 0, "k", "aborted-" + i));
      producer.flush();
      producer.abortTransaction();
      // A third transaction, committed, after the abort: the producer goes on with the same id.
      producer.beginTransaction();
      producer.send(new ProducerRecord<>("java-txn", 0, "k", "committed-after-abort")).get();
      producer.commitTransaction();
    }
    result.put("readCommitted", readAll("java-txn", "read_committed"));
    result.put("readUncommitted", readAll("java-txn", "read_uncommitted"));
    try (Admin admin = admin(bootstrap)) {
      result.put("transactionVersion", admin.describeFeatures().featureMetadata().get().finalizedFeatures().get("transaction.version").maxVersionLevel());
      TransactionDescription d = admin.describeTransactions(List.of("java-txn")).description("java-txn").get();
      result.put("txnState", d.state().toString());
      result.put("listed", admin.listTransactions().all().get().stream().map(TransactionListing::transactionalId).toList());
    }
    return result;
  }

  static List<String> readAll(String topic, String isolation) {
    Properties p = new Properties();
    p.put("isolation.level", isolation);
    List<String> values = new ArrayList<>();
    try (KafkaConsumer<String, String> consumer = consumer(p)) {
      TopicPartition tp = new TopicPartition(topic, 0);
      consumer.assign(List.of(tp));
      consumer.seekToBeginning(List.of(tp));
      long end = consumer.endOffsets(List.of(tp)).get(tp);
      long deadline = System.currentTimeMillis() + 20_000;
      while (consumer.position(tp) < end && System.currentTimeMillis() < deadline) {
        for (ConsumerRecord<String, String> r : consumer.poll(Duration.ofMillis(200))) values.add(r.value());
      }
    }
    return values;
  }

  /** Admin: topics by name and by id, configs, partitions, groups and their offsets. */
  static Object admin() throws Exception {
    Map<String, Object> result = new LinkedHashMap<>();
    try (Admin admin = admin(bootstrap)) {
      NewTopic keep = new NewTopic("java-admin", 2, (short) 1).configs(Map.of("retention.ms", "7200000"));
      NewTopic gone = new NewTopic("java-admin-gone", 1, (short) 1);
      CreateTopicsResult created = admin.createTopics(List.of(keep, gone));
      created.all().get();
      Uuid keepId = created.topicId("java-admin").get();
      Uuid goneId = created.topicId("java-admin-gone").get();
      result.put("topicId", keepId.toString());

      TopicDescription byName = admin.describeTopics(List.of("java-admin")).allTopicNames().get().get("java-admin");
      TopicDescription byId = admin.describeTopics(TopicCollection.ofTopicIds(List.of(keepId))).allTopicIds().get().get(keepId);
      result.put("describedId", byName.topicId().toString());
      result.put("describedById", byId.name());
      result.put("partitions", byName.partitions().size());

      admin.createPartitions(Map.of("java-admin", NewPartitions.increaseTo(3))).all().get();
      ConfigResource res = new ConfigResource(ConfigResource.Type.TOPIC, "java-admin");
      admin.incrementalAlterConfigs(Map.of(res, List.of(
          new AlterConfigOp(new ConfigEntry("cleanup.policy", "compact"), AlterConfigOp.OpType.SET)))).all().get();
      Config config = admin.describeConfigs(List.of(res)).all().get().get(res);
      result.put("retentionMs", config.get("retention.ms").value());
      result.put("retentionSource", config.get("retention.ms").source().toString());
      result.put("cleanupPolicy", config.get("cleanup.policy").value());

      admin.deleteTopics(TopicCollection.ofTopicIds(List.of(goneId))).all().get();
      result.put("listedAfterDelete", admin.listTopics().names().get().stream().filter(n -> n.startsWith("java-admin")).sorted().toList());

      Map<String, String> groups = new TreeMap<>();
      for (GroupListing g : admin.listGroups().all().get()) groups.put(g.groupId(), g.type().map(Object::toString).orElse("?"));
      result.put("groups", groups);
      Map<TopicPartition, OffsetAndMetadata> offsets = admin.listConsumerGroupOffsets("java-g-classic").partitionsToOffsetAndMetadata().get();
      result.put("classicOffset", offsets.get(new TopicPartition("java-none", 0)).offset());
      result.put("clusterId", admin.describeCluster().clusterId().get());
      result.put("nodes", admin.describeCluster().nodes().get().size());
    }
    return result;
  }

  /**
   * SCRAM users and ACLs, on the broker's authorizer: the PLAINTEXT admin (a super user) creates a SCRAM user and
   * grants it writes on a prefix of topics; that user then logs in over SASL_PLAINTEXT and produces.
   */
  static Object security() throws Exception {
    Map<String, Object> result = new LinkedHashMap<>();
    try (Admin admin = admin(bootstrap)) {
      admin.createTopics(List.of(new NewTopic("carol-orders", 1, (short) 1), new NewTopic("secret", 1, (short) 1))).all().get();
      admin.alterUserScramCredentials(List.of(
          new UserScramCredentialUpsertion("carol", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_256, 8192), "carol-secret"),
          new UserScramCredentialUpsertion("dave", new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "dave-secret"))).all().get();
      admin.alterUserScramCredentials(List.of(new UserScramCredentialDeletion("dave", ScramMechanism.SCRAM_SHA_512))).all().get();
      Map<String, Object> users = new TreeMap<>();
      for (var e : admin.describeUserScramCredentials().all().get().entrySet()) {
        users.put(e.getKey(), e.getValue().credentialInfos().stream().map(c -> c.mechanism() + ":" + c.iterations()).toList());
      }
      result.put("scramUsers", users);

      AclBinding write = new AclBinding(new ResourcePattern(ResourceType.TOPIC, "carol-", PatternType.PREFIXED),
          new AccessControlEntry("User:carol", "*", AclOperation.WRITE, AclPermissionType.ALLOW));
      AclBinding idempotent = new AclBinding(new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
          new AccessControlEntry("User:carol", "*", AclOperation.IDEMPOTENT_WRITE, AclPermissionType.ALLOW));
      AclBinding stale = new AclBinding(new ResourcePattern(ResourceType.GROUP, "old-group", PatternType.LITERAL),
          new AccessControlEntry("User:carol", "*", AclOperation.READ, AclPermissionType.ALLOW));
      admin.createAcls(List.of(write, idempotent, stale)).all().get();
      result.put("deletedAcls", admin.deleteAcls(List.of(stale.toFilter())).all().get().size());
      result.put("acls", admin.describeAcls(new AclBindingFilter(
          new ResourcePatternFilter(ResourceType.ANY, null, PatternType.ANY), AccessControlEntryFilter.ANY)).values().get().stream()
          .map(b -> b.pattern().resourceType() + ":" + b.pattern().name() + ":" + b.pattern().patternType() + ":" + b.entry().operation())
          .sorted().toList());
    }

    Properties p = common(saslBootstrap);
    p.put("key.serializer", StringSerializer.class.getName());
    p.put("value.serializer", StringSerializer.class.getName());
    p.put("security.protocol", "SASL_PLAINTEXT");
    p.put("sasl.mechanism", "SCRAM-SHA-256");
    p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"carol\" password=\"carol-secret\";");
    p.put("max.block.ms", "10000");
    p.put("delivery.timeout.ms", "10000");
    p.put("request.timeout.ms", "5000");
    p.put("linger.ms", "0");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      result.put("allowedOffset", producer.send(new ProducerRecord<>("carol-orders", 0, "k", "from carol")).get().offset());
      try {
        producer.send(new ProducerRecord<>("secret", 0, "k", "not allowed")).get();
        result.put("denied", "sent");
      } catch (ExecutionException e) {
        result.put("denied", e.getCause().getClass().getSimpleName());
      }
    }
    p.put("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"carol\" password=\"wrong\";");
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p)) {
      producer.send(new ProducerRecord<>("carol-orders", 0, "k", "wrong password")).get();
      result.put("wrongPassword", "sent");
    } catch (Exception e) {
      Throwable c = e instanceof ExecutionException ? e.getCause() : e;
      result.put("wrongPassword", c.getClass().getSimpleName());
    }
    return result;
  }
}
