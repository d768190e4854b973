// Kafka 4.4 KafkaConsumers (group.protocol=consumer) joining one group together, for
// test/integration/groups-kip848-join.test.ts: each runs in its own thread and polls until stdin closes. Each
// consumer prints a line whenever its assignment changes, with the milliseconds since all of them subscribed:
//   {"member":1,"ms":412,"partitions":[2]}
//   java -cp 'test/kafka/lib/*:<classes>' ConsumerGroupMembers <bootstrap> <group> <topic> <consumers>
import java.time.Duration;
import java.util.*;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.serialization.StringDeserializer;

public class ConsumerGroupMembers {
  public static void main(String[] args) throws Exception {
    int count = Integer.parseInt(args[3]);
    // The consumers are built first (class loading, metadata), then subscribe at one instant.
    List<KafkaConsumer<String, String>> consumers = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      Properties p = new Properties();
      p.put("bootstrap.servers", args[0]);
      p.put("group.id", args[1]);
      p.put("group.protocol", "consumer");
      p.put("client.id", "member-" + i);
      p.put("key.deserializer", StringDeserializer.class.getName());
      p.put("value.deserializer", StringDeserializer.class.getName());
      consumers.add(new KafkaConsumer<>(p));
    }
    CountDownLatch start = new CountDownLatch(1);
    long[] startedAt = new long[1];
    List<Thread> threads = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      int member = i;
      KafkaConsumer<String, String> consumer = consumers.get(i);
      Thread t = new Thread(() -> {
        try {
          start.await();
          consumer.subscribe(List.of(args[2]));
          String last = null;
          while (running) {
            consumer.poll(Duration.ofMillis(50));
            String now = consumer.assignment().stream().map(TopicPartition::partition).sorted()
                .map(String::valueOf).collect(Collectors.joining(","));
            if (!now.equals(last)) {
              last = now;
              report(member, System.currentTimeMillis() - startedAt[0], now);
            }
          }
        } catch (Exception e) {
          System.err.println("member " + member + ": " + e);
        } finally {
          consumer.close(Duration.ofSeconds(5));
        }
      });
      t.start();
      threads.add(t);
    }
    startedAt[0] = System.currentTimeMillis();
    start.countDown();
    // Until stdin closes.
    while (System.in.read() >= 0) {}
    running = false;
    for (Thread t : threads) t.join();
  }

  static volatile boolean running = true;

  static synchronized void report(int member, long ms, String partitions) {
    System.out.println("{\"member\":" + member + ",\"ms\":" + ms + ",\"partitions\":[" + partitions + "]}");
    System.out.flush();
  }
}
