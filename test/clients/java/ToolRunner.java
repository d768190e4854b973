// Runs Kafka's own tools (kafka-topics, kafka-configs, ...) through their main classes, one after another in this
// one JVM, for test/integration/kafka-tools.test.ts: a JVM start per tool would cost more than most tools take.
// Each stdin line is a JSON array, [main class, args...]; for each, one stdout line: {"code", "out", "err", "ms"}.
// Exit.exit, which the tools end with, is turned into an exception (Kafka's internal Exit class lets tests replace
// its procedures). The first call is where the script's JVM would have stopped: its code is the exit code, and
// what the tool printed after it (some catch the exception, print it and exit again) is dropped.
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.*;
import java.lang.reflect.InvocationTargetException;
import java.nio.charset.StandardCharsets;
import java.util.*;
import org.apache.kafka.common.utils.internals.Exit;

public class ToolRunner {
  static final class ExitCalled extends RuntimeException {
    final int code;

    ExitCalled(int code) {
      super("exit " + code, null, false, false);
      this.code = code;
    }
  }

  static ByteArrayOutputStream out;
  static ByteArrayOutputStream err;
  /** The first exit of the running tool: its code, and how much it had printed by then. */
  static int[] firstExit;

  static void exit(int code) {
    if (firstExit == null) {
      System.out.flush();
      System.err.flush();
      firstExit = new int[] {code, out.size(), err.size()};
    }
    throw new ExitCalled(code);
  }

  public static void main(String[] args) throws Exception {
    ObjectMapper json = new ObjectMapper();
    PrintStream stdout = System.out;
    PrintStream stderr = System.err;
    Exit.setExitProcedure((code, message) -> exit(code));
    Exit.setHaltProcedure((code, message) -> exit(code));
    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line; (line = in.readLine()) != null; ) {
      List<String> command = Arrays.asList(json.readValue(line, String[].class));
      out = new ByteArrayOutputStream();
      err = new ByteArrayOutputStream();
      firstExit = null;
      System.setOut(new PrintStream(out, true, StandardCharsets.UTF_8));
      System.setErr(new PrintStream(err, true, StandardCharsets.UTF_8));
      long started = System.nanoTime();
      int code = 0;
      try {
        Class.forName(command.get(0)).getMethod("main", String[].class)
            .invoke(null, (Object) command.subList(1, command.size()).toArray(new String[0]));
      } catch (InvocationTargetException e) {
        if (!(e.getCause() instanceof ExitCalled)) {
          code = 1;
          e.getCause().printStackTrace();
        }
      } catch (Exception e) {
        code = 1;
        e.printStackTrace();
      } finally {
        System.out.flush();
        System.err.flush();
        System.setOut(stdout);
        System.setErr(stderr);
      }
      byte[] printed = out.toByteArray();
      byte[] printedErr = err.toByteArray();
      if (firstExit != null) {
        code = firstExit[0];
        printed = Arrays.copyOf(printed, firstExit[1]);
        printedErr = Arrays.copyOf(printedErr, firstExit[2]);
      }
      Map<String, Object> result = new LinkedHashMap<>();
      result.put("code", code);
      result.put("out", new String(printed, StandardCharsets.UTF_8));
      result.put("err", new String(printedErr, StandardCharsets.UTF_8));
      result.put("ms", (System.nanoTime() - started) / 1_000_000);
      stdout.println(json.writeValueAsString(result));
      stdout.flush();
    }
  }
}
