// One Kafka 4.4 KafkaShareConsumer (explicit or implicit acknowledgement), for test/integration/share-consumer-java.test.ts:
// it reads <topic> in share group <group>, acknowledges each record by its value (v % 10 == 3: RELEASE on its
// first delivery, ACCEPT after; v % 10 == 7: REJECT; else ACCEPT), commits with commitSync, and prints one JSON
// line per record received ({"recv": offset, "partition": p, "count": deliveryCount}), per acknowledgement the
// broker confirmed ({"ack": "ACCEPT", "offset": n, "partition": p}), and per poll that returned nothing
// ({"idle": true}); an acknowledgement whose commit failed is printed as "failed", with the "type" it tried.
// It runs until stdin closes, riding out broker restarts. <pause ms> after each poll's records stands for work,
// so that a test can kill the broker while records are out. With <mode> implicit it acknowledges nothing itself:
// the consumer accepts what a poll returned with its next poll (share.acknowledgement.mode=implicit), and only
// the deliveries are printed. With <mode> release it releases every record, every time (explicitly). With <mode> dlq
// it rejects v % 10 == 7, releases v % 10 == 3 every time (until the delivery count limit archives it) and accepts
// the rest, for the share group's dead-letter queue (KIP-1191).
//
//   java -cp 'test/kafka/lib/*:<classes>' ShareConsumerApp <bootstrap> <topic> <group> <max.poll.records> <pause ms> <explicit|implicit|release|dlq>
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicIdPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

public class ShareConsumerApp {
  public static void main(String[] args) throws Exception {
    AtomicBoolean stop = new AtomicBoolean(false);
    Thread watcher = new Thread(() -> {
      try (BufferedReader in = new BufferedReader(new InputStreamReader(System.in))) {
        while (in.readLine() != null) { }
      } catch (Exception ignored) { }
      stop.set(true);
    });
    watcher.setDaemon(true);
    watcher.start();

    Properties p = new Properties();
    p.put("bootstrap.servers", args[0]);
    p.put("group.id", args[2]);
    p.put("client.id", "share-" + ProcessHandle.current().pid());
    boolean explicit = !"implicit".equals(args[5]);
    boolean releaseAll = "release".equals(args[5]);
    boolean alwaysRelease = "dlq".equals(args[5]);
    p.put("share.acknowledgement.mode", explicit ? "explicit" : "implicit");
    p.put("max.poll.records", args[3]);
    long pauseMs = Long.parseLong(args[4]);
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(p)) {
      consumer.subscribe(List.of(args[1]));
      System.out.println("{\"started\": true}");
      while (!stop.get()) {
        ConsumerRecords<String, String> records;
        try {
          records = consumer.poll(Duration.ofMillis(500));
        } catch (KafkaException e) {
          System.out.println("{\"pollError\": \"" + e.getClass().getSimpleName() + "\"}");
          continue;
        }
        if (records.isEmpty()) {
          System.out.println("{\"idle\": true}");
          continue;
        }
        Map<ConsumerRecord<String, String>, String> decided = new LinkedHashMap<>();
        for (ConsumerRecord<String, String> r : records) {
          int count = r.deliveryCount().map(Short::intValue).orElse(-1);
          System.out.println("{\"recv\": " + r.offset() + ", \"partition\": " + r.partition() + ", \"count\": " + count + "}");
          if (!explicit) continue;
          int v = Integer.parseInt(r.value());
          AcknowledgeType type = releaseAll ? AcknowledgeType.RELEASE : v % 10 == 7 ? AcknowledgeType.REJECT : v % 10 == 3 && (count == 1 || alwaysRelease) ? AcknowledgeType.RELEASE : AcknowledgeType.ACCEPT;
          consumer.acknowledge(r, type);
          decided.put(r, type.name());
        }
        if (decided.isEmpty()) continue;
        Thread.sleep(pauseMs);
        boolean ok;
        try {
          Map<TopicIdPartition, Optional<KafkaException>> result = consumer.commitSync(Duration.ofSeconds(10));
          ok = result.values().stream().allMatch(Optional::isEmpty);
        } catch (KafkaException e) {
          ok = false;
        }
        for (Map.Entry<ConsumerRecord<String, String>, String> e : decided.entrySet()) {
          String where = "\"offset\": " + e.getKey().offset() + ", \"partition\": " + e.getKey().partition();
          System.out.println(ok ? "{\"ack\": \"" + e.getValue() + "\", " + where + "}" : "{\"ack\": \"failed\", \"type\": \"" + e.getValue() + "\", " + where + "}");
        }
      }
    }
    System.out.println("{\"closed\": true}");
  }
}
