// The client side of bench/share-groups.ts, one JVM for a broker's round: phases that each read the whole of <topic>
// (<records> records) from its start in a group of their own, one after another:
//   share-N  N Kafka 4.4 KafkaShareConsumers (one thread each) in a new share group (share.auto.offset.reset=earliest,
//            set on the group with IncrementalAlterConfigs) acknowledge each record explicitly with ACCEPT; the
//            acknowledgements ride on the next poll, and a last commitSync sends the rest;
//   group-N  N KafkaConsumers in a new consumer group (group.protocol=consumer, auto.offset.reset=earliest, offsets
//            committed automatically, so a partition moving to a member that joins later is not read again), a
//            commitSync each at the end;
//   latency  one KafkaShareConsumer, max.poll.records 100, ACCEPTs each poll's records and calls commitSync, timed
//            from the call to its return (the broker's answer); <latency records> records, then it stops.
// Each phase prints {"phase": p, "first": true} when its first record arrives (the bench counts the broker's CPU from
// there) and {"phase": p, "records": n, "ms": from the first record received to the last acknowledgement or commit
// confirmed}, the latency phase with "p50" and "p99" (ms) and "samples". Exits 1 if a phase fails or takes 300 s.
//
//   java -cp 'test/kafka/lib/*' bench/peers/ShareBench.java <bootstrap> <topic> <group prefix> <records> <consumers,...> <latency records>
import java.time.Duration;
import java.util.*;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.clients.consumer.*;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

public class ShareBench {
  /** What a phase's workers share: the records received so far, how many to read, until when, the first-record mark. */
  record Progress(AtomicLong received, long target, long deadline, Runnable onFirst) {
    /** Polls until the phase has its records, handing each non-empty batch to `each`, then counting it. */
    void pollUntilDone(Supplier<ConsumerRecords<byte[], byte[]>> poll, Consumer<ConsumerRecords<byte[], byte[]>> each) {
      while (received.get() < target && System.nanoTime() < deadline) {
        ConsumerRecords<byte[], byte[]> records = poll.get();
        if (records.isEmpty()) continue;
        onFirst.run();
        each.accept(records);
        received.addAndGet(records.count());
      }
    }
  }

  interface Worker {
    /** Reads until the phase has its records; returns when its last acknowledgement or commit is confirmed. */
    void run(Progress progress) throws Exception;
  }

  static String bootstrap;

  public static void main(String[] args) throws Exception {
    bootstrap = args[0];
    String topic = args[1], prefix = args[2];
    long records = Long.parseLong(args[3]);
    long latencyRecords = Long.parseLong(args[5]);
    for (String n : args[4].split(",")) {
      int consumers = Integer.parseInt(n);
      String shareGroup = prefix + "-share-" + consumers;
      setEarliest(shareGroup);
      phase("share-" + consumers, consumers, records, () -> shareWorker(topic, shareGroup, 500, null));
      phase("group-" + consumers, consumers, records, () -> groupWorker(topic, prefix + "-group-" + consumers));
    }
    if (latencyRecords > 0) {
      String group = prefix + "-latency";
      setEarliest(group);
      List<Long> nanos = Collections.synchronizedList(new ArrayList<>());
      String done = phase("latency", 1, Math.min(latencyRecords, records), () -> shareWorker(topic, group, 100, nanos));
      long[] sorted = nanos.stream().mapToLong(Long::longValue).sorted().toArray();
      System.out.println(done.substring(0, done.length() - 1) + ", \"p50\": " + sorted[sorted.length / 2] / 1e6
          + ", \"p99\": " + sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)] / 1e6 + ", \"samples\": " + sorted.length + "}");
    }
  }

  static void setEarliest(String group) throws Exception {
    try (Admin admin = Admin.create(Map.of("bootstrap.servers", bootstrap))) {
      ConfigResource res = new ConfigResource(ConfigResource.Type.GROUP, group);
      admin.incrementalAlterConfigs(Map.of(res, List.of(new AlterConfigOp(new ConfigEntry("share.auto.offset.reset", "earliest"), AlterConfigOp.OpType.SET)))).all().get();
    }
  }

  /** Runs `consumers` workers until `target` records are received; prints the phase's result line (but latency's). */
  static String phase(String name, int consumers, long target, Supplier<Worker> make) throws Exception {
    AtomicLong received = new AtomicLong();
    AtomicLong firstAt = new AtomicLong(Long.MAX_VALUE);
    AtomicLong lastAt = new AtomicLong();
    Progress progress = new Progress(received, target, System.nanoTime() + 300_000_000_000L, () -> {
      if (firstAt.compareAndSet(Long.MAX_VALUE, System.nanoTime())) System.out.println("{\"phase\": \"" + name + "\", \"first\": true}");
    });
    List<Thread> threads = new ArrayList<>();
    List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
    for (int c = 0; c < consumers; c++) {
      Worker w = make.get();
      Thread t = new Thread(() -> {
        try {
          w.run(progress);
          lastAt.accumulateAndGet(System.nanoTime(), Math::max);
        } catch (Throwable e) {
          failures.add(e);
        }
      });
      t.start();
      threads.add(t);
    }
    for (Thread t : threads) t.join();
    if (!failures.isEmpty() || received.get() < target) {
      System.out.println("{\"error\": \"" + name + ": " + (failures.isEmpty() ? "timed out at " + received.get() : failures.get(0).toString().replace('"', '\'')) + "\"}");
      System.exit(1);
    }
    String line = "{\"phase\": \"" + name + "\", \"records\": " + received.get() + ", \"ms\": " + (lastAt.get() - firstAt.get()) / 1_000_000.0 + "}";
    if (!name.equals("latency")) System.out.println(line);
    return line;
  }

  static Properties props(String group) {
    Properties p = new Properties();
    p.put("bootstrap.servers", bootstrap);
    p.put("group.id", group);
    p.put("key.deserializer", ByteArrayDeserializer.class.getName());
    p.put("value.deserializer", ByteArrayDeserializer.class.getName());
    return p;
  }

  /** A KafkaShareConsumer; with `commitNanos`, a commitSync after each poll, its duration recorded. */
  static Worker shareWorker(String topic, String group, int maxPollRecords, List<Long> commitNanos) {
    return progress -> {
      Properties p = props(group);
      p.put("share.acknowledgement.mode", "explicit");
      p.put("max.poll.records", String.valueOf(maxPollRecords));
      try (KafkaShareConsumer<byte[], byte[]> consumer = new KafkaShareConsumer<>(p)) {
        consumer.subscribe(List.of(topic));
        progress.pollUntilDone(() -> consumer.poll(Duration.ofMillis(100)), records -> {
          for (ConsumerRecord<byte[], byte[]> r : records) consumer.acknowledge(r, AcknowledgeType.ACCEPT);
          if (commitNanos == null) return;
          long t0 = System.nanoTime();
          boolean ok = consumer.commitSync(Duration.ofSeconds(30)).values().stream().allMatch(Optional::isEmpty);
          commitNanos.add(System.nanoTime() - t0);
          if (!ok) throw new IllegalStateException("an acknowledgement failed");
        });
        boolean ok = consumer.commitSync(Duration.ofSeconds(30)).values().stream().allMatch(Optional::isEmpty);
        if (!ok) throw new IllegalStateException("an acknowledgement failed");
      }
    };
  }

  static Worker groupWorker(String topic, String group) {
    return progress -> {
      Properties p = props(group);
      p.put("auto.offset.reset", "earliest");
      p.put("group.protocol", "consumer");
      try (KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(p)) {
        consumer.subscribe(List.of(topic));
        progress.pollUntilDone(() -> consumer.poll(Duration.ofMillis(100)), records -> { });
        consumer.commitSync(Duration.ofSeconds(30));
      }
    };
  }
}
