// One Kafka Streams 4.4 instance for test/integration/kafka-streams.test.ts, under group.protocol=classic and
// exactly_once_v2: a word count (store word-counts) and a windowed count per word (store windowed-counts, 10 s
// tumbling windows on the records' own timestamps), both behind one repartition topic (words). Arguments:
// bootstrap, application id, state dir, then optionally the group protocol and a group.instance.id. Prints
// "STATE <state>" on each transition; when stdin ends, closes leaving the group, or, as a static member (an instance
// id given), without leaving it (it keeps its tasks until it comes back or its session times out), and prints CLOSED.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.Arrays;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Grouped;
import org.apache.kafka.streams.kstream.KGroupedStream;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;
import org.apache.kafka.streams.kstream.TimeWindows;

public class StreamsApp {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
    props.put(StreamsConfig.STATE_DIR_CONFIG, args[2]);
    props.put(StreamsConfig.PROCESSING_GUARANTEE_CONFIG, StreamsConfig.EXACTLY_ONCE_V2);
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
    // Purged soon after each commit, so that the test sees the repartition topic's start offset move.
    props.put(StreamsConfig.REPARTITION_PURGE_INTERVAL_MS_CONFIG, 500);
    // "classic" or "streams" (KIP-1071): under streams the broker's group configs set the session and heartbeat.
    String protocol = args.length > 3 ? args[3] : "classic";
    props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, protocol);
    if (protocol.equals("classic")) {
      props.put(StreamsConfig.consumerPrefix(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG), 6000);
      props.put(StreamsConfig.consumerPrefix(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG), 500);
    }
    String instanceId = args.length > 4 ? args[4] : null;
    if (instanceId != null) props.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), instanceId);
    props.put(StreamsConfig.RETRY_BACKOFF_MS_CONFIG, 200);
    props.put("reconnect.backoff.max.ms", 500);

    StreamsBuilder builder = new StreamsBuilder();
    KGroupedStream<String, String> words = builder.stream("text-in", Consumed.with(Serdes.String(), Serdes.String()))
        .flatMapValues(line -> Arrays.asList(line.toLowerCase().split("\\s+")))
        .filter((k, w) -> !w.isEmpty())
        .groupBy((k, w) -> w, Grouped.with("words", Serdes.String(), Serdes.String()));
    words.count(Materialized.as("word-counts"))
        .toStream()
        .to("word-counts-out", Produced.with(Serdes.String(), Serdes.Long()));
    words.windowedBy(TimeWindows.ofSizeAndGrace(Duration.ofSeconds(10), Duration.ofHours(1)))
        .count(Materialized.as("windowed-counts"))
        .toStream()
        .map((w, n) -> KeyValue.pair(w.key() + "@" + w.window().start(), n))
        .to("windowed-counts-out", Produced.with(Serdes.String(), Serdes.Long()));

    KafkaStreams streams = new KafkaStreams(builder.build(), props);
    // A thread that dies on a broker outage is replaced, so that the instance keeps going as an operator's would.
    streams.setUncaughtExceptionHandler(e -> {
      System.err.println("stream thread failed: " + e);
      return StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse.REPLACE_THREAD;
    });
    streams.setStateListener((next, prev) -> {
      System.out.println("STATE " + next);
      System.out.flush();
    });
    streams.start();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    while (in.readLine() != null) {}
    CloseOptions.GroupMembershipOperation onClose = instanceId == null
        ? CloseOptions.GroupMembershipOperation.LEAVE_GROUP : CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP;
    streams.close(CloseOptions.groupMembershipOperation(onClose).withTimeout(Duration.ofSeconds(30)));
    System.out.println("CLOSED");
    System.out.flush();
  }
}
