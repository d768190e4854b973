// A Kafka 4.4 KafkaShareConsumer that joins a share group and polls until its stdin closes, for
// test/integration/share-group-tools.test.ts: its heartbeats are the real client's ShareGroupHeartbeat. Prints
// "polling" once it has polled; poll errors (ShareFetch belongs to the share partitions) go to stderr.
//   java -cp 'test/kafka/lib/*:<classes>' ShareMember <bootstrap> <group> <topic> <client id>
import java.time.Duration;
import java.util.*;
import org.apache.kafka.clients.consumer.KafkaShareConsumer;
import org.apache.kafka.common.serialization.StringDeserializer;

public class ShareMember {
  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    p.put("bootstrap.servers", args[0]);
    p.put("group.id", args[1]);
    p.put("client.id", args[3]);
    p.put("key.deserializer", StringDeserializer.class.getName());
    p.put("value.deserializer", StringDeserializer.class.getName());
    Thread stdin = new Thread(() -> {
      try {
        while (System.in.read() >= 0) {}
      } catch (Exception ignored) {}
    });
    stdin.setDaemon(true);
    stdin.start();
    try (KafkaShareConsumer<String, String> consumer = new KafkaShareConsumer<>(p)) {
      consumer.subscribe(List.of(args[2]));
      boolean announced = false;
      while (stdin.isAlive()) {
        try {
          consumer.poll(Duration.ofMillis(200));
        } catch (Exception e) {
          System.err.println("poll: " + e);
          Thread.sleep(200);
        }
        if (!announced) {
          System.out.println("polling");
          System.out.flush();
          announced = true;
        }
      }
    }
  }
}
