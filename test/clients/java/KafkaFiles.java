// What Apache Kafka 4.4's own classes find in a stopped kafkite's data dir (issue 31: moving a data dir to
// Kafka): every record of every __consumer_offsets partition through the group coordinator's record serde (as
// its loader reads them), each partition's latest producer snapshot beside the producer state Kafka's
// LogSegment.recover() builds from the same segments, and __cluster_metadata-0's partition.metadata.
// Usage: java KafkaFiles <log dir> [topic...]; prints one JSON object. With topics, also Kafka's KIP-1101 metadata
// hash of a group subscribed to them (Utils.computeGroupHash over computeTopicHash), their ids and partition
// counts read from the dir.
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.record.internal.FileRecords;
import org.apache.kafka.common.record.internal.Record;
import org.apache.kafka.common.record.internal.RecordBatch;
import org.apache.kafka.common.utils.Time;
import org.apache.kafka.common.metadata.PartitionRecord;
import org.apache.kafka.common.metadata.TopicRecord;
import org.apache.kafka.coordinator.common.runtime.CoordinatorRecord;
import org.apache.kafka.coordinator.common.runtime.KRaftCoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.GroupCoordinatorRecordSerde;
import org.apache.kafka.coordinator.group.Utils;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMemberMetadataValue;
import org.apache.kafka.coordinator.group.generated.ConsumerGroupMetadataValue;
import org.apache.kafka.image.MetadataDelta;
import org.apache.kafka.image.MetadataImage;
import org.apache.kafka.image.MetadataProvenance;
import org.apache.kafka.server.util.KafkaScheduler;
import org.apache.kafka.storage.internals.checkpoint.LeaderEpochCheckpointFile;
import org.apache.kafka.storage.internals.checkpoint.PartitionMetadataFile;
import org.apache.kafka.storage.internals.epoch.LeaderEpochFileCache;
import org.apache.kafka.storage.internals.log.BatchMetadata;
import org.apache.kafka.storage.internals.log.LogConfig;
import org.apache.kafka.storage.internals.log.LogDirFailureChannel;
import org.apache.kafka.storage.internals.log.LogSegment;
import org.apache.kafka.storage.internals.log.ProducerStateEntry;
import org.apache.kafka.storage.internals.log.ProducerStateManager;
import org.apache.kafka.storage.internals.log.ProducerStateManagerConfig;

public class KafkaFiles {
  public static void main(String[] args) throws Exception {
    File logDir = new File(args[0]);
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("consumerOffsets", consumerOffsets(logDir));
    out.put("producerSnapshots", producerSnapshots(logDir));
    out.put("clusterMetadata", clusterMetadata(logDir));
    if (args.length > 1) out.put("metadataHash", String.valueOf(metadataHash(logDir, Arrays.copyOfRange(args, 1, args.length))));
    System.out.println(new ObjectMapper().writeValueAsString(out));
  }

  static File[] partitionDirs(File logDir, String topic) {
    File[] dirs = logDir.listFiles((d, name) -> name.startsWith(topic + "-") && new File(d, name).isDirectory());
    Arrays.sort(dirs);
    return dirs;
  }

  static File[] files(File dir, String suffix) {
    File[] files = dir.listFiles((d, name) -> name.endsWith(suffix));
    Arrays.sort(files);
    return files;
  }

  /** Record types (a value's class, or the key's for a tombstone) counted, decode errors, and the KIP-848 members. */
  static Map<String, Object> consumerOffsets(File logDir) throws Exception {
    GroupCoordinatorRecordSerde serde = new GroupCoordinatorRecordSerde();
    Map<String, Integer> types = new TreeMap<>();
    List<String> errors = new ArrayList<>();
    List<Map<String, Object>> members = new ArrayList<>();
    List<String> groupHashes = new ArrayList<>();
    for (File dir : partitionDirs(logDir, "__consumer_offsets")) {
      for (File segment : files(dir, ".log")) {
        try (FileRecords records = FileRecords.open(segment)) {
          for (RecordBatch batch : records.batches()) {
            // The coordinator's loader takes control batches as transaction markers, not records.
            if (batch.isControlBatch()) continue;
            for (Record r : batch) {
              try {
                CoordinatorRecord record = serde.deserialize(r.key(), r.hasValue() ? r.value() : null);
                String type = record.value() == null
                    ? record.key().getClass().getSimpleName() + " tombstone"
                    : record.value().message().getClass().getSimpleName();
                types.merge(type, 1, Integer::sum);
                if (record.value() != null && record.value().message() instanceof ConsumerGroupMetadataValue g) {
                  groupHashes.add(String.valueOf(g.metadataHash()));
                }
                if (record.value() != null && record.value().message() instanceof ConsumerGroupMemberMetadataValue m) {
                  Map<String, Object> member = new LinkedHashMap<>();
                  member.put("clientId", m.clientId());
                  member.put("classicMemberMetadata", m.classicMemberMetadata() == null ? null : m.classicMemberMetadata().toString());
                  members.add(member);
                }
              } catch (RuntimeException e) {
                errors.add(dir.getName() + " offset " + r.offset() + ": " + e);
              }
            }
          }
        }
      }
    }
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("types", types);
    out.put("errors", errors);
    out.put("members", members);
    out.put("groupMetadataHashes", groupHashes);
    return out;
  }

  /** Per partition with a snapshot: the latest one as Kafka reads it, and the state its recovery of the segments builds. */
  static List<Map<String, Object>> producerSnapshots(File logDir) throws Exception {
    List<Map<String, Object>> out = new ArrayList<>();
    KafkaScheduler scheduler = new KafkaScheduler(1);
    scheduler.startup();
    try {
      for (File dir : partitionDirs(logDir, "__consumer_offsets")) {
        File[] snapshots = files(dir, ".snapshot");
        if (snapshots.length == 0) continue;
        File latest = Arrays.stream(snapshots).max(Comparator.comparingLong(KafkaFiles::baseOffset)).get();
        Map<String, Object> partition = new LinkedHashMap<>();
        partition.put("partition", dir.getName());
        partition.put("snapshotOffset", baseOffset(latest));
        partition.put("snapshot", entries(ProducerStateManager.readSnapshot(latest)));
        // Recovery rewrites the indexes: it runs on a copy of the segments.
        File copy = Files.createTempDirectory("kafka-files-").toFile();
        try {
          for (File f : dir.listFiles((d, name) -> name.endsWith(".log"))) {
            Files.copy(f.toPath(), new File(copy, f.getName()).toPath(), StandardCopyOption.REPLACE_EXISTING);
          }
          TopicPartition tp = new TopicPartition("__consumer_offsets", Integer.parseInt(dir.getName().substring("__consumer_offsets-".length())));
          ProducerStateManager state = new ProducerStateManager(tp, copy, 60_000, new ProducerStateManagerConfig(86_400_000, false), Time.SYSTEM);
          LeaderEpochFileCache epochs = new LeaderEpochFileCache(tp,
              new LeaderEpochCheckpointFile(new File(copy, "leader-epoch-checkpoint"), new LogDirFailureChannel(1)), scheduler);
          for (File f : files(copy, ".log")) {
            try (LogSegment segment = LogSegment.open(copy, baseOffset(f), new LogConfig(Map.of()), Time.SYSTEM, true, 0, false, "")) {
              segment.recover(state, epochs);
            }
          }
          partition.put("recoveredEndOffset", state.mapEndOffset());
          partition.put("recovered", entries(state.activeProducers().values()));
        } finally {
          for (File f : copy.listFiles()) f.delete();
          copy.delete();
        }
        out.add(partition);
      }
    } finally {
      scheduler.shutdown();
    }
    return out;
  }

  static long baseOffset(File f) {
    return Long.parseLong(f.getName().substring(0, f.getName().indexOf('.')));
  }

  static List<Map<String, Object>> entries(Iterable<ProducerStateEntry> entries) {
    List<Map<String, Object>> out = new ArrayList<>();
    for (ProducerStateEntry e : entries) {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("producerId", e.producerId());
      m.put("producerEpoch", e.producerEpoch());
      // The snapshot keeps each producer's last batch (recovery its last five), without the batch's own
      // timestamp: Kafka's snapshot reads it back as the producer's last timestamp.
      BatchMetadata last = e.batchMetadata().stream().reduce((a, b) -> b).orElse(null);
      m.put("firstSeq", last == null ? null : last.firstSeq());
      m.put("lastSeq", last == null ? null : last.lastSeq());
      m.put("firstDataOffset", e.firstDataOffset());
      m.put("lastDataOffset", e.lastDataOffset());
      m.put("lastTimestamp", e.lastTimestamp());
      m.put("coordinatorEpoch", e.coordinatorEpoch());
      m.put("currentTxnFirstOffset", e.currentTxnFirstOffset().orElse(-1));
      out.add(m);
    }
    out.sort(Comparator.comparingLong(m -> (Long) m.get("producerId")));
    return out;
  }

  static long metadataHash(File logDir, String[] topics) throws Exception {
    MetadataDelta delta = new MetadataDelta.Builder().setImage(MetadataImage.EMPTY).build();
    for (String topic : topics) {
      File[] dirs = partitionDirs(logDir, topic);
      Uuid id = new PartitionMetadataFile(new File(dirs[0], "partition.metadata"), new LogDirFailureChannel(1)).read().topicId();
      delta.replay(new TopicRecord().setName(topic).setTopicId(id));
      for (int p = 0; p < dirs.length; p++) {
        delta.replay(new PartitionRecord().setTopicId(id).setPartitionId(p).setReplicas(List.of(1)).setIsr(List.of(1)).setLeader(1));
      }
    }
    KRaftCoordinatorMetadataImage image = new KRaftCoordinatorMetadataImage(delta.apply(MetadataProvenance.EMPTY));
    Map<String, Long> hashes = new TreeMap<>();
    for (String topic : topics) hashes.put(topic, Utils.computeTopicHash(topic, image));
    return Utils.computeGroupHash(hashes);
  }

  static Map<String, Object> clusterMetadata(File logDir) {
    PartitionMetadataFile file = new PartitionMetadataFile(new File(logDir, "__cluster_metadata-0/partition.metadata"), new LogDirFailureChannel(1));
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("exists", file.exists());
    if (file.exists()) {
      Uuid topicId = file.read().topicId();
      out.put("topicId", topicId.toString());
      out.put("isMetadataTopicId", topicId.equals(Uuid.METADATA_TOPIC_ID));
    }
    return out;
  }
}
