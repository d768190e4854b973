// kafka-shell 4.3.1 (the newest Maven Central serves here; test/kafka/pom.xml) exits and adds its shutdown hook
// through org.apache.kafka.common.utils.Exit, which kafka-clients 4.4 moved to org.apache.kafka.common.utils.internals:
// on the 4.4 jars MetadataShell fails with NoClassDefFoundError. This class, on the shell's classpath only
// (test/integration/kafka-takeover.test.ts), gives the old name back for the two calls the shell makes.
package org.apache.kafka.common.utils;

public final class Exit {
  private Exit() {}

  public static void exit(int statusCode) {
    org.apache.kafka.common.utils.internals.Exit.exit(statusCode);
  }

  public static void addShutdownHook(String name, Runnable runnable) {
    org.apache.kafka.common.utils.internals.Exit.addShutdownHook(name, runnable);
  }
}
