// The share-group consumer of bench/share-groups.ts: <consumers> Kafka 4.4 KafkaShareConsumers (one thread each) in
// share group <group> read <topic> from its start (share.auto.offset.reset=earliest, set on the group with
// IncrementalAlterConfigs) and acknowledge each record explicitly with ACCEPT; the acknowledgements ride on the
// next poll, and a last commitSync sends the rest. It prints {"first": true} when the first record arrives (the
// bench counts the broker's CPU from there) and, when <records> have been received between them,
// {"records": n, "ms": from the first record received to the last acknowledgement confirmed}. Exits 1 after 300 s.
//
//   java -cp 'test/kafka/lib/*' bench/peers/ShareBench.java <bootstrap> <topic> <group> <consumers> <records>
import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class ShareBench {
  public static void main(String[] args) throws Exception {
    String bootstrap = args[0], topic = args[1], group = args[2];
    int consumers = Integer.parseInt(args[3]);
    long target = Long.parseLong(args[4]);
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, group);
      admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all().get();
    }
    AtomicLong received = new AtomicLong();
    AtomicLong firstAt = new AtomicLong(Long.MAX_VALUE);
    AtomicLong lastAckAt = new AtomicLong();
    long deadline = System.nanoTime() + 300_000_000_000L;
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    for (int c = 0; c < consumers; c++) {
      Thread t = new Thread(() -> {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("group.id", group);
        p.put("share.acknowledgement.mode", "explicit");
        p.put("key.deserializer", ByteArrayDeserializer.class.getName());
        p.put("value.deserializer", ByteArrayDeserializer.class.getName());
        try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(p)) {
          consumer.subscribe(List.of(topic));
          while (received.get() < target && System.nanoTime() < deadline) {
            ConsumerRecords<byte[], byte[]> records = consumer.poll(Duration.ofMillis(100));
            if (records.isEmpty()) continue;
            if (firstAt.compareAndSet(Long.MAX_VALUE, System.nanoTime())) System.out.println("{\"first\": true}");
            for (ConsumerRecord<byte[], byte[]> r : records) consumer.acknowledge(r, AcknowledgeType.ACCEPT);
            received.addAndGet(records.count());
          }
          boolean ok = consumer.commitSync(Duration.ofSeconds(30)).values().stream().allMatch(Optional::isEmpty);
          if (!ok) throw new IllegalStateException("an acknowledgement failed");
          lastAckAt.accumulateAndGet(System.nanoTime(), Math::max);
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) t.join();
    if (!failures.isEmpty() || received.get() < target) {
      System.out.println("{\"error\": \"" + (failures.isEmpty() ? "timed out at " + received.get() : failures.get(0).toString().replace('"', '\'')) + "\"}");
      System.exit(1);
    }
    System.out.println("{\"records\": " + received.get() + ", \"ms\": " + (lastAckAt.get() - firstAt.get()) / 1_000_000.0 + "}");
  }
}
