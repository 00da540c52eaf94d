package io.jkubelet.agent.util;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The syntax of label keys and values, as the API server's {@code IsQualifiedName} and {@code
 * IsValidLabelValue}: for the node's labels and taints (flags and file) and for a static pod's
 * labels, which upstream validates before it runs the pod.
 */
public final class LabelSyntax {
  private static final Pattern NAME = Pattern.compile("([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]");
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  private LabelSyntax() {}

  /** Why the key is not a qualified name ({@code [prefix/]name}), or empty when it is one. */
  public static Optional<String> checkKey(String key) {
    if (key == null || key.isEmpty()) {
      return Optional.of("must not be empty");
    }
    String[] parts = key.split("/", -1);
    String name;
    if (parts.length == 1) {
      name = parts[0];
    } else if (parts.length == 2) {
      String prefix = parts[0];
      if (prefix.isEmpty()) {
        return Optional.of("prefix part must not be empty");
      }
      if (prefix.length() > 253 || !DNS_SUBDOMAIN.matcher(prefix).matches()) {
        return Optional.of(
            "prefix part must be a lowercase DNS subdomain of at most 253 characters");
      }
      name = parts[1];
    } else {
      return Optional.of("must be a name with an optional DNS subdomain prefix and one '/'");
    }
    if (name.isEmpty()) {
      return Optional.of("name part must not be empty");
    }
    if (name.length() > 63) {
      return Optional.of("name part must be no more than 63 characters");
    }
    if (!NAME.matcher(name).matches()) {
      return Optional.of(
          "name part must consist of alphanumeric characters, '-', '_' or '.', and must start"
              + " and end with an alphanumeric character");
    }
    return Optional.empty();
  }

  /** Why the value is not a label value, or empty when it is one. */
  public static Optional<String> checkValue(String value) {
    if (value == null) {
      return Optional.of("must not be null");
    }
    if (value.length() > 63) {
      return Optional.of("must be no more than 63 characters");
    }
    if (!value.isEmpty() && !NAME.matcher(value).matches()) {
      return Optional.of(
          "must be empty or consist of alphanumeric characters, '-', '_' or '.', and must start"
              + " and end with an alphanumeric character");
    }
    return Optional.empty();
  }
}
