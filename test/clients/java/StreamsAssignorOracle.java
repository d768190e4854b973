import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.kafka.coordinator.group.api.streams.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.streams.assignor.TopologyDescriber;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentConfigsImpl;
import org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl;
import org.apache.kafka.coordinator.group.streams.assignor.MemberMetadataAndStateImpl;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;

/**
 * Kafka 4.4's own streams StickyTaskAssignor, asked about the cases on stdin (a JSON array: numStandbyReplicas,
 * subtopologies [{id, tasks, stateful}], members [{memberId, processId, active, standby, taskOffsets}], tasks as
 * {subtopology: [partitions]}, offsets as {subtopology: {partition: offset}}). For each case it prints the
 * assignment ({memberId: {active, standby}}) and whether it is unique: the same under several renamings of the
 * member and process ids, since Kafka breaks ties in the iteration order of its hash maps.
 */
public class StreamsAssignorOracle {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String[] RENAMINGS = {"", "-x", "-renamed-7", "Q", "-zz-41"};

  public static void main(String[] args) throws Exception {
    JsonNode cases = JSON.readTree(System.in);
    ArrayNode out = JSON.createArrayNode();
    for (JsonNode c : cases) {
      Map<String, Map<String, Map<String, Set<Integer>>>> first = null;
      boolean unique = true;
      for (String suffix : RENAMINGS) {
        Map<String, Map<String, Map<String, Set<Integer>>>> result = assign(c, suffix);
        if (first == null) first = result;
        else if (!first.equals(result)) unique = false;
      }
      ObjectNode r = JSON.createObjectNode();
      r.put("unique", unique);
      r.set("assignment", JSON.valueToTree(first));
      out.add(r);
    }
    System.out.println(JSON.writeValueAsString(out));
  }

  private static Map<String, Map<String, Map<String, Set<Integer>>>> assign(JsonNode c, String suffix) {
    Map<String, MemberMetadataAndStateImpl> members = new LinkedHashMap<>();
    for (JsonNode m : c.get("members")) {
      members.put(m.get("memberId").asText() + suffix, new MemberMetadataAndStateImpl(
          Optional.empty(), Optional.empty(), m.get("processId").asText() + suffix, Map.of(),
          tasks(m.get("active")), tasks(m.get("standby")), Map.of(), offsets(m.get("taskOffsets")), Map.of()));
    }
    List<String> ids = new ArrayList<>();
    Map<String, Integer> counts = new HashMap<>();
    Map<String, Boolean> stateful = new HashMap<>();
    for (JsonNode s : c.get("subtopologies")) {
      ids.add(s.get("id").asText());
      counts.put(s.get("id").asText(), s.get("tasks").asInt());
      stateful.put(s.get("id").asText(), s.get("stateful").asBoolean());
    }
    TopologyDescriber topology = new TopologyDescriber() {
      public List<String> subtopologies() { return ids; }
      public int maxNumInputPartitions(String id) { return counts.get(id); }
      public boolean isStateful(String id) { return stateful.get(id); }
    };
    GroupAssignment assignment = new StickyTaskAssignor().assign(
        new GroupSpecImpl(members, new AssignmentConfigsImpl(c.get("numStandbyReplicas").asInt(), List.of())), topology);
    Map<String, Map<String, Map<String, Set<Integer>>>> out = new TreeMap<>();
    for (Map.Entry<String, MemberAssignment> e : assignment.members().entrySet()) {
      Map<String, Map<String, Set<Integer>>> tuple = new TreeMap<>();
      tuple.put("active", sorted(e.getValue().activeTasks()));
      tuple.put("standby", sorted(e.getValue().standbyTasks()));
      out.put(e.getKey().substring(0, e.getKey().length() - suffix.length()), tuple);
    }
    return out;
  }

  private static Map<String, Set<Integer>> tasks(JsonNode node) {
    Map<String, Set<Integer>> out = new HashMap<>();
    node.fields().forEachRemaining(e -> {
      Set<Integer> ps = new TreeSet<>();
      e.getValue().forEach(p -> ps.add(p.asInt()));
      out.put(e.getKey(), ps);
    });
    return out;
  }

  private static Map<String, Map<Integer, Long>> offsets(JsonNode node) {
    Map<String, Map<Integer, Long>> out = new HashMap<>();
    node.fields().forEachRemaining(e -> {
      Map<Integer, Long> ps = new HashMap<>();
      e.getValue().fields().forEachRemaining(p -> ps.put(Integer.parseInt(p.getKey()), p.getValue().asLong()));
      out.put(e.getKey(), ps);
    });
    return out;
  }

  private static Map<String, Set<Integer>> sorted(Map<String, Set<Integer>> tasks) {
    Map<String, Set<Integer>> out = new TreeMap<>();
    tasks.forEach((s, ps) -> { if (!ps.isEmpty()) out.put(s, new TreeSet<>(ps)); });
    return out;
  }
}
