// Writes <dir>/broker-configs.tsv and <dir>/topic-configs.tsv, kafkite's config reference tables, from the
// ConfigDefs of the Kafka jars on the classpath (test/kafka/lib): AbstractKafkaConfig.CONFIG_DEF for the broker,
// LogConfig for topics, ServerTopicConfigSynonyms for the broker synonyms of topic configs. Only facts come out:
// names, types, defaults, validators written in the tables' forms (config/kafka-4.4/README.md). A validator of a
// kind this program does not know fails the run, so a new Kafka cannot slip one past the generator.
import java.lang.reflect.Field;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.types.Password;
import org.apache.kafka.server.config.AbstractKafkaConfig;
import org.apache.kafka.server.config.ConfigSynonym;
import org.apache.kafka.server.config.DynamicConfig;
import org.apache.kafka.server.config.ServerTopicConfigSynonyms;
import org.apache.kafka.storage.internals.log.LogConfig;

public class KafkaConfigTables {
  private static final String NO_SYNONYM = "none (topic-level default only)";
  private static final Pattern RANGE = Pattern.compile("\\[(-?[\\d.E]+),\\.\\.\\.(?:,(-?[\\d.E]+))?\\]");

  /** The table's group of each ConfigDef that AbstractKafkaConfig merges, in the table's order. */
  private static Map<String, List<ConfigDef>> groups() {
    Map<String, List<ConfigDef>> g = new LinkedHashMap<>();
    g.put("network", List.of(org.apache.kafka.network.SocketServerConfigs.CONFIG_DEF));
    g.put("log", List.of(LogConfig.SERVER_CONFIG_DEF, org.apache.kafka.storage.internals.log.CleanerConfig.CONFIG_DEF,
        org.apache.kafka.server.log.remote.storage.RemoteLogManagerConfig.configDef()));
    g.put("group-coordinator", List.of(org.apache.kafka.coordinator.group.GroupCoordinatorConfig.CONFIG_DEF,
        org.apache.kafka.coordinator.group.modern.share.ShareGroupConfig.CONFIG_DEF,
        org.apache.kafka.coordinator.share.ShareCoordinatorConfig.CONFIG_DEF));
    g.put("transactions", List.of(org.apache.kafka.coordinator.transaction.TransactionLogConfig.CONFIG_DEF,
        org.apache.kafka.coordinator.transaction.TransactionStateManagerConfig.CONFIG_DEF,
        org.apache.kafka.coordinator.transaction.AddPartitionsToTxnConfig.CONFIG_DEF));
    g.put("security/sasl", List.of(org.apache.kafka.common.config.internals.BrokerSecurityConfigs.CONFIG_DEF,
        org.apache.kafka.server.config.DelegationTokenManagerConfigs.CONFIG_DEF));
    g.put("quotas", List.of(org.apache.kafka.server.config.QuotaConfig.CONFIG_DEF));
    g.put("kraft/controller", List.of(org.apache.kafka.raft.KRaftConfigs.CONFIG_DEF, org.apache.kafka.raft.MetadataLogConfig.CONFIG_DEF,
        org.apache.kafka.raft.QuorumConfig.CONFIG_DEF));
    g.put("other", List.of(org.apache.kafka.server.config.ServerConfigs.CONFIG_DEF, org.apache.kafka.server.config.ReplicationConfigs.CONFIG_DEF,
        org.apache.kafka.server.metrics.MetricConfigs.CONFIG_DEF));
    return g;
  }

  public static void main(String[] args) throws Exception {
    Path dir = Path.of(args[0]);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("broker-configs.tsv"), brokerTable());
    Files.writeString(dir.resolve("topic-configs.tsv"), topicTable());
  }

  private static String brokerTable() {
    Map<String, String> topicNames = new TreeMap<>();
    ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS.forEach((topic, synonyms) -> synonyms.forEach((s) -> topicNames.put(s.name(), topic)));
    Map<String, ConfigDef.ConfigKey> keys = AbstractKafkaConfig.CONFIG_DEF.configKeys();
    Map<String, String> groupOf = new TreeMap<>();
    groups().forEach((group, defs) -> defs.forEach((d) -> d.names().forEach((n) -> groupOf.putIfAbsent(n, group))));
    Map<String, TreeMap<String, String>> rows = new LinkedHashMap<>();
    groups().keySet().forEach((g) -> rows.put(g, new TreeMap<>()));
    for (ConfigDef.ConfigKey k : keys.values()) {
      String group = groupOf.get(k.name);
      if (group == null) throw new IllegalStateException(k.name + ": in no ConfigDef of groups()");
      rows.get(group).put(k.name, row(k.name, type(k), defaultText(k), validator(k), topicNames.getOrDefault(k.name, ""), group));
    }
    // The broker accepts these outside CONFIG_DEF: StandardAuthorizer's two, and DynamicConfig.Broker's quotas.
    rows.get("security/sasl").put("super.users", row("super.users", "string", "\"\"", "semicolon-separated list of principals, e.g. User:alice;User:bob", "", "security/sasl"));
    rows.get("security/sasl").put("allow.everyone.if.no.acl.found", row("allow.everyone.if.no.acl.found", "boolean", "false", "", "", "security/sasl"));
    for (ConfigDef.ConfigKey k : DynamicConfig.Broker.configKeys().values()) {
      if (!keys.containsKey(k.name)) rows.get("quotas").put(k.name, row(k.name, type(k), defaultText(k), validator(k), "", "quotas"));
    }
    StringBuilder out = new StringBuilder("name\ttype\tdefault\tvalid_values_or_range\ttopic_level_name\tgroup\n");
    rows.values().forEach((g) -> g.values().forEach(out::append));
    return out.toString();
  }

  private static String topicTable() {
    Map<String, ConfigDef.ConfigKey> brokerKeys = AbstractKafkaConfig.CONFIG_DEF.configKeys();
    StringBuilder out = new StringBuilder("name\ttype\tdefault\tdefault_supplied_by_broker_property\tvalid_values\tbroker_synonyms_in_priority_order\n");
    for (ConfigDef.ConfigKey k : LogConfig.configKeys().values()) {
      List<ConfigSynonym> synonyms = ServerTopicConfigSynonyms.ALL_TOPIC_CONFIG_SYNONYMS.getOrDefault(k.name, List.of());
      // A stock broker's value: the first synonym with a default, converted to the topic's unit.
      String value = defaultText(k);
      String suppliedBy = NO_SYNONYM;
      for (ConfigSynonym s : synonyms) {
        ConfigDef.ConfigKey b = brokerKeys.get(s.name());
        if (b != null && b.hasDefault() && b.defaultValue != null) {
          value = s.converter().apply(defaultText(b));
          suppliedBy = s.name();
          break;
        }
      }
      List<String> chain = new ArrayList<>();
      for (ConfigSynonym s : synonyms) {
        long multiplier = Long.parseLong(s.converter().apply("1"));
        chain.add(multiplier == 1 ? s.name() : s.name() + " (x" + multiplier + " -> ms)");
      }
      out.append(row(k.name, type(k), value, suppliedBy, validator(k), String.join(" > ", chain)));
    }
    return out.toString();
  }

  private static String row(String... cells) {
    return String.join("\t", cells) + "\n";
  }

  private static String type(ConfigDef.ConfigKey k) {
    return k.type.name().toLowerCase();
  }

  /** `null` for no default, `""` for an empty one, lists comma-separated (the tables' conventions). */
  private static String defaultText(ConfigDef.ConfigKey k) {
    if (!k.hasDefault() || k.defaultValue == null) return "null";
    Object v = k.defaultValue;
    String text;
    if (v instanceof Collection<?> c) text = String.join(",", c.stream().map(String::valueOf).toList());
    else if (v instanceof Class<?> c) text = c.getName();
    else if (v instanceof Password p) text = p.value();
    else text = String.valueOf(v);
    return text.isEmpty() ? "\"\"" : text;
  }

  private static String validator(ConfigDef.ConfigKey k) {
    ConfigDef.Validator v = k.validator;
    if (v == null) return "";
    String cls = v.getClass().getName();
    if (v instanceof ConfigDef.Range) return range(v.toString(), k.name);
    if (v instanceof ConfigDef.ValidString) return "one of: " + join(field(v, "validStrings"));
    if (v instanceof ConfigDef.CaseInsensitiveValidString) return "one of (case-insensitive): " + join(field(v, "validStrings"));
    if (v instanceof ConfigDef.ValidList) {
      // Every ValidList refuses a repeated value; some also an empty list (KIP-1161).
      Collection<?> values = field(field(v, "validString"), "validStrings");
      String list = ((Boolean) field(v, "isEmptyAllowed") ? "" : "non-empty ") + "list, no duplicates";
      return values.isEmpty() ? list : list + ", each one of: " + join(values);
    }
    if (v instanceof ConfigDef.NonEmptyString) return "non-empty string";
    if (cls.equals("org.apache.kafka.common.config.ConfigDef$NonNullValidator")) return "non-null string";
    // compression.gzip.level's "[1,...,9] or -1"
    if (cls.equals("org.apache.kafka.common.config.ConfigDef$LambdaValidator") && v.toString().matches("\\[[^]]+\\] or -?\\d+")) {
      String text = v.toString();
      int or = text.indexOf("] or ");
      return range(text.substring(0, or + 1), k.name) + text.substring(or + 1);
    }
    if (cls.equals("org.apache.kafka.raft.QuorumConfig$ControllerQuorumVotersValidator")) return "list of {node.id}@{host}:{port} (may be empty)";
    if (cls.equals("org.apache.kafka.raft.QuorumConfig$ControllerQuorumBootstrapServersValidator")) return "list of {host}:{port} (may be empty)";
    if (cls.equals("org.apache.kafka.storage.internals.log.ThrottledReplicaListValidator")) return "'*' or list of {partitionId}:{brokerId}";
    throw new IllegalStateException(k.name + ": validator " + cls + " (" + v + ") has no form in the tables");
  }

  /** Range's "[1,...]" and "[0,...,1]" as ">= 1" and "0..1". */
  private static String range(String text, String name) {
    Matcher m = RANGE.matcher(text);
    if (!m.matches()) throw new IllegalStateException(name + ": range " + text + " has no form in the tables");
    return m.group(2) == null ? ">= " + m.group(1) : m.group(1) + ".." + m.group(2);
  }

  private static String join(Collection<?> values) {
    return String.join(",", values.stream().map(String::valueOf).toList());
  }

  @SuppressWarnings("unchecked")
  private static <T> T field(Object o, String name) {
    try {
      Field f = o.getClass().getDeclaredField(name);
      f.setAccessible(true);
      return (T) f.get(o);
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException(o.getClass().getName() + "." + name, e);
    }
  }
}
