// kafka-shell 4.3.1 (the newest Maven Central serves here; test/kafka/pom.xml) catches kafka.tools.TerseFailure, a
// class the 4.4 core jar no longer has: on the 4.4 jars MetadataShell fails to load with NoClassDefFoundError. This
// class, on the shell's classpath only (test/integration/kafka-takeover.test.ts), gives the name back; the shell
// only catches it.
package kafka.tools;

public class TerseFailure extends RuntimeException {
  public TerseFailure(String message) {
    super(message);
  }
}
