// connect-file 4.3.1 (the newest Maven Central serves here; test/kafka/pom.xml) reports its connectors' and
// tasks' versions with org.apache.kafka.common.utils.AppInfoParser.getVersion(), a class kafka-clients 4.4
// moved to org.apache.kafka.common.utils.internals: in a 4.4 worker the FileStream connectors fail with
// NoClassDefFoundError when they are scanned and started. This class, on the workers' classpath only
// (test/integration/kafka-connect.test.ts), gives the old name back; connect-file needs nothing else it lacks. The
// metadata shell (kafka-shell 4.3.1, kafka-takeover.test.ts) also asks it for the commit id.
package org.apache.kafka.common.utils;

public final class AppInfoParser {
  private AppInfoParser() {}

  public static String getVersion() {
    return org.apache.kafka.common.utils.internals.AppInfoParser.getVersion();
  }

  public static String getCommitId() {
    return org.apache.kafka.common.utils.internals.AppInfoParser.getCommitId();
  }
}
