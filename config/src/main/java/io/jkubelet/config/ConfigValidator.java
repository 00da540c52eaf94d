package io.jkubelet.config;

/**
 * Checks that a {@link KubeletConfiguration} is usable. Run it once the configuration is complete,
 * that is after command-line flags have been overlaid on the loaded file.
 *
 * <p>The rules are the declarations' ({@link Field}: {@code min}, {@code max}, {@code oneOf} and
 * {@link Checks}), then each settings record's own ({@link Validated}), in component order; see
 * {@link Settings#validate}.
 */
public final class ConfigValidator {

  private ConfigValidator() {}

  /**
   * Validates {@code config}.
   *
   * @throws ConfigException for the first setting that breaks a rule, e.g. {@code readOnlyPort:
   *     must be between 0 and 65535, got 70000}
   * @throws NullPointerException if {@code config} is null
   */
  public static void validate(KubeletConfiguration config) {
    Settings.validate(config);
  }

  /**
   * A byte quantity as Kubernetes writes it: a whole number with an optional suffix {@code
   * Ki|Mi|Gi|Ti} (powers of 1024) or {@code k|M|G|T} (powers of 1000).
   *
   * @throws ConfigException naming {@code field} when it is not one
   */
  public static long bytes(String field, String quantity) {
    var m =
        java.util.regex.Pattern.compile("([0-9]{1,15})(Ki|Mi|Gi|Ti|k|M|G|T)?").matcher(quantity);
    if (!m.matches()) {
      throw new ConfigException(
          field,
          "expected a quantity of bytes such as \"1Gi\" or \"500M\", got \"" + quantity + "\"");
    }
    long n = Long.parseLong(m.group(1));
    long unit =
        switch (m.group(2) == null ? "" : m.group(2)) {
          case "Ki" -> 1L << 10;
          case "Mi" -> 1L << 20;
          case "Gi" -> 1L << 30;
          case "Ti" -> 1L << 40;
          case "k" -> 1000L;
          case "M" -> 1000_000L;
          case "G" -> 1000_000_000L;
          case "T" -> 1000_000_000_000L;
          default -> 1L;
        };
    try {
      return Math.multiplyExact(n, unit);
    } catch (ArithmeticException x) {
      throw new ConfigException(field, "\"" + quantity + "\" is too large");
    }
  }
}
