// Kafka 4.4's Java Admin on share groups, for test/integration/share-group-tools.test.ts: lists the share groups
// (Admin.listGroups with the share type) and describes the named ones (Admin.describeShareGroups), then prints one
// JSON object: {"listed": [{groupId, type, state}], "described": [{groupId, state, groupEpoch, assignmentEpoch,
// members: [{memberId, clientId, memberEpoch, partitions: ["topic-0", ...]}]}]}.
//   java -cp 'test/kafka/lib/*:<classes>' ShareGroupAdmin <bootstrap> <group>...
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.*;
import org.apache.kafka.clients.admin.*;
import org.apache.kafka.common.GroupType;

public class ShareGroupAdmin {
  public static void main(String[] args) throws Exception {
    Properties p = new Properties();
    p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
    Map<String, Object> result = new LinkedHashMap<>();
    try (Admin admin = Admin.create(p)) {
      List<Map<String, Object>> listed = new ArrayList<>();
      for (GroupListing g : admin.listGroups(new ListGroupsOptions().withTypes(Set.of(GroupType.SHARE))).all().get()) {
        listed.add(Map.of("groupId", g.groupId(), "type", String.valueOf(g.type().orElse(null)), "state", String.valueOf(g.groupState().orElse(null))));
      }
      result.put("listed", listed);
      List<Map<String, Object>> described = new ArrayList<>();
      List<String> groups = Arrays.asList(args).subList(1, args.length);
      for (ShareGroupDescription d : admin.describeShareGroups(groups).all().get().values()) {
        List<Map<String, Object>> members = new ArrayList<>();
        for (ShareMemberDescription m : d.members()) {
          List<String> partitions = m.assignment().topicPartitions().stream().map(Object::toString).sorted().toList();
          members.add(Map.of("memberId", m.consumerId(), "clientId", m.clientId(), "memberEpoch", m.memberEpoch(), "partitions", partitions));
        }
        Map<String, Object> group = new LinkedHashMap<>();
        group.put("groupId", d.groupId());
        group.put("state", d.groupState().toString());
        group.put("groupEpoch", d.groupEpoch());
        group.put("assignmentEpoch", d.targetAssignmentEpoch());
        group.put("members", members);
        described.add(group);
      }
      result.put("described", described);
    }
    System.out.println(new ObjectMapper().writeValueAsString(result));
  }
}
