// The Kafka Streams 4.4 side of bench/streams.ts: one JVM per broker, which reads commands on stdin and answers
// each with one JSON line ({"error": ...} when it failed). Every Streams instance runs the same exactly-once word
// count: <in> -> split into words -> repartition by word (topic <app>-words-repartition) -> count (store "counts",
// changelog <app>-counts-changelog) -> <out>; with <in> of P partitions that is 2P tasks. Each instance has its own
// state dir, hence its own process id, as two machines would.
//
//   rebalance <app> <protocol> <in> <out> <partitions>
//       instance a starts and owns every task; then b starts: joinMs runs from b.start() until both are RUNNING,
//       each owning at least one active task and together all 2P; then b closes, leaving the group: leaveMs runs
//       from b.close() until a is RUNNING with all 2P again (closeMs: until b.close() returned). The input stays
//       empty: the changelogs are empty, so no task waits for a restore (nor, under the classic protocol, for a
//       warm-up).
//   fill <in> <records>
//       produces <records> lines of three words (acks=all, idempotent): the input of wordcount.
//   wordcount <app> <in> <out> <records>
//       one instance (classic protocol) counts the words of <in>; ms runs from its start until a read_committed
//       consumer of <out> has seen every word's count reach its expected value, computed from the lines fill
//       produced. A count above the expected one, a count that does not rise, or a word never produced is an error.
//
//   java -cp 'test/kafka/lib/*' bench/peers/StreamsBench.java <bootstrap> <session.timeout.ms> <heartbeat.interval.ms>
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.*;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.BooleanSupplier;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.LongDeserializer;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.Topology;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

public class StreamsBench {
  static final int VOCABULARY = 1000;
  static final long TIMEOUT_MS = 240_000;
  static String bootstrap;
  static int sessionTimeoutMs;
  static int heartbeatIntervalMs;
  static Path stateRoot;

  public static void main(String[] args) throws Exception {
    bootstrap = args[0];
    sessionTimeoutMs = Integer.parseInt(args[1]);
    heartbeatIntervalMs = Integer.parseInt(args[2]);
    stateRoot = Files.createTempDirectory("streams-bench-");
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    try {
      for (String line; (line = in.readLine()) != null; ) {
        String[] c = line.trim().split("\\s+");
        String answer;
        try {
          answer = switch (c[0]) {
            case "rebalance" -> rebalance(c[1], c[2], c[3], c[4], Integer.parseInt(c[5]));
            case "fill" -> fill(c[1], Integer.parseInt(c[2]));
            case "wordcount" -> wordCount(c[1], c[2], c[3], Integer.parseInt(c[4]));
            default -> throw new IllegalArgumentException("unknown command " + c[0]);
          };
        } catch (Throwable e) {
          answer = "{\"error\": \"" + e.toString().replace('"', '\'').replace('\\', '/').replace('\n', ' ') + "\"}";
        }
        System.out.println(answer);
        System.out.flush();
      }
    } finally {
      deleteTree(stateRoot);
    }
  }

  /** Line i of the input: three words of the vocabulary. */
  static String[] words(int i) {
    return new String[] {"w" + (i % VOCABULARY), "w" + ((i * 7 + 3) % VOCABULARY), "w" + ((i * 13 + 5) % VOCABULARY)};
  }

  static Topology topology(String in, String out) {
    StreamsBuilder builder = new StreamsBuilder();
    builder.stream(in, Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(line -> Arrays.asList(line.split(" ")))
        .groupBy((k, word) -> word, Grouped.with("words", Serdes.String(), Serdes.String()))
        .count(Materialized.as("counts"))
        .toStream()
        .to(out, Produced.with(Serdes.String(), Serdes.Long()));
    return builder.build();
  }

  static KafkaStreams instance(String app, String protocol, String in, String out, String name) throws IOException {
    Properties p = new Properties();
    p.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
    p.put(StreamsConfig.STATE_DIR_CONFIG, Files.createDirectories(stateRoot.resolve(app).resolve(name)).toString());
    p.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    p.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, protocol);
    // Under the streams protocol the broker's group.streams.* configs set these (bench/streams.ts gives both
    // brokers the same values); under classic the members ask for them in JoinGroup.
    if (protocol.equals("classic")) {
      p.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), sessionTimeoutMs);
      p.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), heartbeatIntervalMs);
    }
    return new KafkaStreams(topology(in, out), p);
  }

  /** The ids of the active tasks `streams` runs, or null while it is not RUNNING. */
  static Set<String> running(KafkaStreams streams) {
    if (streams.state() != KafkaStreams.State.RUNNING) return null;
    return streams.metadataForLocalThreads().stream()
        .flatMap(t -> t.activeTasks().stream())
        .map(t -> t.taskId().toString())
        .collect(Collectors.toSet());
  }

  /** Polls `done` every 2 ms; the time it first held, in System.nanoTime(). */
  static long waitFor(BooleanSupplier done, String what) throws Exception {
    long deadline = System.nanoTime() + TIMEOUT_MS * 1_000_000;
    while (!done.getAsBoolean()) {
      if (System.nanoTime() > deadline) throw new TimeoutException("no " + what + " within " + TIMEOUT_MS + " ms");
      Thread.sleep(2);
    }
    return System.nanoTime();
  }

  static void close(KafkaStreams streams) {
    streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP).withTimeout(Duration.ofSeconds(30)));
  }

  static String rebalance(String app, String protocol, String in, String out, int partitions) throws Exception {
    int tasks = 2 * partitions;
    KafkaStreams a = instance(app, protocol, in, out, "a");
    KafkaStreams b = instance(app, protocol, in, out, "b");
    try {
      a.start();
      waitFor(() -> { Set<String> t = running(a); return t != null && t.size() == tasks; }, "instance a owning all " + tasks + " tasks");
      int[] split = new int[2];
      long joinStart = System.nanoTime();
      b.start();
      long joined = waitFor(() -> {
        Set<String> ta = running(a), tb = running(b);
        if (ta == null || tb == null || ta.isEmpty() || tb.isEmpty()) return false;
        Set<String> all = new HashSet<>(ta);
        all.addAll(tb);
        split[0] = ta.size();
        split[1] = tb.size();
        return all.size() == tasks && ta.size() + tb.size() == tasks;
      }, "two instances sharing the tasks");
      long leaveStart = System.nanoTime();
      close(b);
      long closed = System.nanoTime();
      long left = waitFor(() -> { Set<String> t = running(a); return t != null && t.size() == tasks; }, "instance a owning all tasks again");
      return String.format(Locale.ROOT, "{\"joinMs\": %.1f, \"leaveMs\": %.1f, \"closeMs\": %.1f, \"tasks\": %d, \"split\": \"%d/%d\"}",
          (joined - joinStart) / 1e6, (left - leaveStart) / 1e6, (closed - leaveStart) / 1e6, tasks, split[0], split[1]);
    } finally {
      close(b);
      close(a);
      deleteTree(stateRoot.resolve(app));
    }
  }

  static String fill(String in, int records) throws Exception {
    Properties p = new Properties();
    p.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ProducerConfig.ACKS_CONFIG, "all");
    p.put(ProducerConfig.LINGER_MS_CONFIG, 5);
    AtomicReference<Exception> failed = new AtomicReference<>();
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(p, new StringSerializer(), new StringSerializer())) {
      for (int i = 0; i < records && failed.get() == null; i++) {
        producer.send(new ProducerRecord<>(in, String.join(" ", words(i))), (md, e) -> { if (e != null) failed.compareAndSet(null, e); });
      }
      producer.flush();
    }
    if (failed.get() != null) throw failed.get();
    return "{\"records\": " + records + "}";
  }

  static String wordCount(String app, String in, String out, int records) throws Exception {
    Map<String, Long> expected = new HashMap<>();
    for (int i = 0; i < records; i++) for (String w : words(i)) expected.merge(w, 1L, Long::sum);
    Properties p = new Properties();
    p.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    p.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
    p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    Map<String, Long> latest = new HashMap<>();
    int reached = 0;
    long firstOutput = 0;
    KafkaStreams streams = instance(app, "classic", in, out, "a");
    try (KafkaConsumer<String, Long> consumer = new KafkaConsumer<>(p, new StringDeserializer(), new LongDeserializer())) {
      List<TopicPartition> parts = consumer.partitionsFor(out).stream().map(i -> new TopicPartition(out, i.partition())).toList();
      consumer.assign(parts);
      consumer.seekToBeginning(parts);
      long start = System.nanoTime();
      long deadline = start + TIMEOUT_MS * 1_000_000;
      streams.start();
      while (reached < expected.size()) {
        if (System.nanoTime() > deadline) throw new TimeoutException(reached + " of " + expected.size() + " counts reached within " + TIMEOUT_MS + " ms");
        for (ConsumerRecord<String, Long> r : consumer.poll(Duration.ofMillis(50))) {
          if (firstOutput == 0) firstOutput = System.nanoTime();
          Long want = expected.get(r.key());
          long before = latest.getOrDefault(r.key(), 0L);
          if (want == null) throw new IllegalStateException("a count for " + r.key() + ", a word never produced");
          if (r.value() <= before || r.value() > want) throw new IllegalStateException(r.key() + " counted " + r.value() + " after " + before + ", expected at most " + want);
          latest.put(r.key(), r.value());
          if (r.value().longValue() == want) reached++;
        }
      }
      long done = System.nanoTime();
      return String.format(Locale.ROOT, "{\"records\": %d, \"words\": %d, \"ms\": %.1f, \"firstOutputMs\": %.1f}",
          records, expected.size(), (done - start) / 1e6, (firstOutput - start) / 1e6);
    } finally {
      close(streams);
      deleteTree(stateRoot.resolve(app));
    }
  }

  static void deleteTree(Path root) throws IOException {
    if (!Files.exists(root)) return;
    try (var paths = Files.walk(root)) {
      for (Path path : paths.sorted(Comparator.reverseOrder()).toList()) Files.delete(path);
    }
  }
}
