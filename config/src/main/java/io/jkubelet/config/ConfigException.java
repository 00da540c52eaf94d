package io.jkubelet.config;

import java.util.Objects;

/**
 * A configuration value is missing, malformed or out of range.
 *
 * <p>{@link #field()} names what is wrong: a KubeletConfiguration field as written in the file (for
 * example {@code readOnlyPort}, or {@code staticPodURLHeader.Authorization} for a nested value), a
 * command-line flag name, or {@code config} for the configuration file itself. {@link
 * #getMessage()} is always {@code "<field>: <problem>"}, e.g. {@code readOnlyPort: must be between
 * 0 and 65535, got 70000}, so it can be shown to the user as is.
 */
public final class ConfigException extends RuntimeException {

  private final String field;
  private final String problem;

  /**
   * @param field the field, flag or {@code config} the problem is about; not null
   * @param problem what is wrong, phrased to follow {@code "<field>: "}; not null
   */
  public ConfigException(String field, String problem) {
    super(
        Objects.requireNonNull(field, "field") + ": " + Objects.requireNonNull(problem, "problem"));
    this.field = field;
    this.problem = problem;
  }

  /**
   * The problem, caused by an underlying failure.
   *
   * @param cause the underlying failure, or null
   */
  public static ConfigException causedBy(String field, String problem, Throwable cause) {
    ConfigException e = new ConfigException(field, problem);
    e.initCause(cause);
    return e;
  }

  /** The field, flag or {@code config} (the file itself) that the problem is about. */
  public String field() {
    return field;
  }

  /** What is wrong, without the field name. */
  public String problem() {
    return problem;
  }
}
