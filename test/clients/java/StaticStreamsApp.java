// One Kafka Streams 4.4 instance for test/integration/kafka-streams-static.test.ts: a static member
// (group.instance.id) of a streams group (group.protocol=streams, KIP-1071) counting records per key of topic
// static-in into static-out, the counts in a RocksDB store (so that the instance's process id stays in its state
// dir across restarts, as Kafka Streams keeps it for stateful apps). Arguments: bootstrap, application id, state
// dir, instance id. Prints "STATE <state>" on each transition; when stdin ends, closes without leaving the group
// (CloseOptions DEFAULT: a static member sends epoch -2 and keeps its tasks) and prints CLOSED.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.time.Duration;
import java.util.Properties;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.CloseOptions;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.kstream.Produced;

public class StaticStreamsApp {
  public static void main(String[] args) throws Exception {
    Properties props = new Properties();
    props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    props.put(StreamsConfig.APPLICATION_ID_CONFIG, args[1]);
    props.put(StreamsConfig.STATE_DIR_CONFIG, args[2]);
    props.put(StreamsConfig.consumerPrefix(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG), args[3]);
    props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
    props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 200);
    props.put(StreamsConfig.RETRY_BACKOFF_MS_CONFIG, 200);
    props.put("reconnect.backoff.max.ms", 500);

    StreamsBuilder builder = new StreamsBuilder();
    builder.stream("static-in", Consumed.with(Serdes.String(), Serdes.String()))
        .groupByKey()
        .count(Materialized.as("counts"))
        .toStream()
        .to("static-out", Produced.with(Serdes.String(), Serdes.Long()));

    KafkaStreams streams = new KafkaStreams(builder.build(), props);
    streams.setStateListener((next, prev) -> {
      System.out.println("STATE " + next);
      System.out.flush();
    });
    streams.start();
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
    while (in.readLine() != null) {}
    streams.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.REMAIN_IN_GROUP).withTimeout(Duration.ofSeconds(30)));
    System.out.println("CLOSED");
    System.out.flush();
  }
}
