import java.io.BufferedReader;
import java.io.BufferedWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

// java.util.regex as Kafka's RegexRouter applies it, for tests/parity/test_java_patterns.cpp.
// Each input line: a pattern and the route-by values, as hexadecimal UTF-8, space-separated.
// Each output line: "E" when Java refuses the pattern, else "G <groups>" and per value "-" (no
// match: the value stays), "!" (Java throws while matching) or the hexadecimal topic: matches(), then replaceFirst with the
// replacement "<$0><$1>...<$groups>".
public class JavaPatternOracle {
    public static void main(String[] args) throws Exception {
        HexFormat hex = HexFormat.of();
        try (BufferedReader in = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8);
             BufferedWriter out = Files.newBufferedWriter(Path.of(args[1]), StandardCharsets.UTF_8)) {
            for (String line; (line = in.readLine()) != null; ) {
                String[] fields = line.split(" ", -1);
                Pattern pattern;
                try {
                    pattern = Pattern.compile(new String(hex.parseHex(fields[0]), StandardCharsets.UTF_8));
                } catch (PatternSyntaxException e) {
                    out.write("E\n");
                    continue;
                }
                Matcher probe = pattern.matcher("");
                StringBuilder replacement = new StringBuilder();
                for (int g = 0; g <= probe.groupCount(); ++g) replacement.append("<$").append(g).append(">");
                StringBuilder result = new StringBuilder("G ").append(probe.groupCount());
                for (int i = 1; i < fields.length; ++i) {
                    String value = new String(hex.parseHex(fields[i]), StandardCharsets.UTF_8);
                    Matcher matcher = pattern.matcher(value);
                    result.append(' ');
                    boolean matches;
                    try {
                        matches = matcher.matches();
                    } catch (RuntimeException e) {  // Java's own failure (an intersection's null operand)
                        result.append('!');
                        continue;
                    }
                    if (matches) {
                        String topic = matcher.replaceFirst(replacement.toString());
                        result.append(hex.formatHex(topic.getBytes(StandardCharsets.UTF_8)));
                        if (topic.isEmpty()) result.append("=");
                    } else {
                        result.append('-');
                    }
                }
                out.write(result.append('\n').toString());
            }
        }
    }
}
