package io.jkubelet.config;

import com.fasterxml.jackson.databind.JsonNode;
import java.lang.reflect.RecordComponent;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One setting, as declared: a {@link Field} on a settings record's component, or an upstream
 * setting that jkubelet accepts without effect ({@link #ignored}). Immutable.
 *
 * <p>Everything about a setting is read from here: its file name and flags, its type, defaults,
 * checks and doc. {@link Settings} lists them all.
 */
public final class Setting {
  private final String name;
  private final boolean inFile;
  private final List<String> flags;
  private final String label;
  private final Type type;
  private final String value;
  private final String fileValue;
  private final Object defaultValue;
  private final Object fileDefault;
  private final String doc;
  private final Field field;
  private final List<Check> checks;
  private final String reason;

  /** Where the value lives: the components from {@link KubeletConfiguration} down to its own. */
  final List<RecordComponent> path;

  /** A declared component's setting; {@code path} ends with the component. */
  Setting(List<RecordComponent> path) {
    this.path = List.copyOf(path);
    RecordComponent c = path.getLast();
    Field f = c.getAnnotation(Field.class);
    this.field = f;
    Mapping mapping = c.getDeclaringRecord().getAnnotation(Mapping.class);
    String named = mapping == null ? c.getName() : mapping.value() + "." + c.getName();
    this.inFile = !f.file().equals(Field.FLAG_ONLY);
    this.name = f.file().isEmpty() || !inFile ? named : f.file();
    this.flags = flags(named, f.flag());
    this.type = Type.of(c, f);
    this.label = f.label().isEmpty() ? label(c.getName(), type) : f.label();
    this.value = f.value().isEmpty() ? zero(type) : f.value();
    this.fileValue = f.fileValue().equals(Field.SAME) ? value : f.fileValue();
    this.doc = f.doc();
    this.defaultValue = parseDefault(value);
    this.fileDefault = fileValue.equals(value) ? defaultValue : parseDefault(fileValue);
    List<Check> cs = new ArrayList<>();
    for (Class<? extends Check> k : f.check()) {
      try {
        cs.add(k.getDeclaredConstructor().newInstance());
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(name + ": cannot make check " + k.getName(), e);
      }
    }
    this.checks = List.copyOf(cs);
    this.reason = null;
  }

  /**
   * The declared flags; none but {@link Field#NO_FLAG}; by default the name's in kebab case, a
   * {@link Mapping}'s dot a dash ({@code eventExport.caFile} is {@code --event-export-ca-file}).
   */
  private static List<String> flags(String name, String[] declared) {
    if (declared.length == 0) {
      return List.of(
          "--" + KEBAB.matcher(name.replace('.', '-')).replaceAll("-").toLowerCase(Locale.ROOT));
    }
    return Arrays.asList(declared).equals(List.of(Field.NO_FLAG)) ? List.of() : List.of(declared);
  }

  /** Go's zero value as a flag writes it: a setting's default where it declares none. */
  private static String zero(Type type) {
    if (type == Type.BOOL) {
      return "false";
    }
    if (type == Type.INT || type == Type.LONG) {
      return "0";
    }
    return type == Type.DURATION ? "0s" : "";
  }

  /**
   * The label of a flag's value, from its component's name as its flag is: the last word's when it
   * names a kind of value ({@code certDir} takes a {@code DIR}, {@code cniBinDir} a {@code
   * DIR,...}, {@code healthzBindAddress} an {@code IP}), else the type's ({@code DURATION}).
   */
  private static String label(String component, Type type) {
    String[] words = KEBAB.split(component);
    String word = words[words.length - 1];
    String kind = LABELS.get(Character.toUpperCase(word.charAt(0)) + word.substring(1));
    if (kind == null) {
      return type.label();
    }
    return type.javaType() == List.class ? kind + ",..." : kind;
  }

  /** The last words of a component's name that say what its flag takes. */
  private static final Map<String, String> LABELS =
      Map.of(
          "Dir", "DIR",
          "File", "FILE",
          "Port", "PORT",
          "Percent", "PERCENT",
          "URL", "URL",
          "Url", "URL",
          "Address", "IP",
          "CIDR", "CIDR",
          "Mode", "MODE");

  /** Where a word ends: before a capital after a small letter, or before an acronym's next word. */
  private static final Pattern KEBAB =
      Pattern.compile("(?<=[a-z0-9])(?=[A-Z])|(?<=[A-Z])(?=[A-Z][a-z])");

  private Setting(String name, List<String> flags, Type type, String reason, List<Check> checks) {
    this.path = List.of();
    this.field = null;
    this.inFile = name != null;
    this.name = name != null ? name : flags.getFirst();
    this.flags = List.copyOf(flags);
    this.type = type;
    this.label = type.label();
    this.value = "";
    this.fileValue = "";
    this.defaultValue = null;
    this.fileDefault = null;
    this.doc = "Accepted for upstream's sake, without effect: " + reason;
    this.checks = List.copyOf(checks);
    this.reason = Objects.requireNonNull(reason, "reason");
  }

  /**
   * An upstream setting that jkubelet accepts and ignores: its value is read and type-checked as
   * upstream's, and its use is logged once, with {@code reason}.
   *
   * @param file the file's field, or null if upstream has only the flag
   * @param flag the flag, or null if upstream has only the field
   * @param reason why it has no effect here, e.g. "jkubelet serves no profiling handler"
   * @param checks upstream's checks of the value, which a value must pass though it is unused
   */
  public static Setting ignored(
      String file, String flag, Type type, String reason, Check... checks) {
    if (file == null && flag == null) {
      throw new IllegalArgumentException("an ignored setting needs a field or a flag");
    }
    return new Setting(
        file, flag == null ? List.of() : List.of(flag), type, reason, List.of(checks));
  }

  private Object parseDefault(String text) {
    try {
      return type.fromFlag(name, List.of(text));
    } catch (ConfigException e) {
      throw new IllegalStateException("bad default of " + name + ": " + e.getMessage(), e);
    }
  }

  /**
   * The name errors give ({@link ConfigException#field()}): the file's field, dotted when nested
   * ({@code authentication.webhook.enabled}); a flag-only setting's component name; an ignored
   * flag's flag.
   */
  public String name() {
    return name;
  }

  /** Whether a configuration file may set it, as {@link #name()}. */
  public boolean inFile() {
    return inFile;
  }

  /** Upstream's flag names; empty when the file alone sets it. */
  public List<String> flags() {
    return flags;
  }

  /** The flag's value in {@code --help}, e.g. {@code PORT}. */
  public String label() {
    return label;
  }

  public Type type() {
    return type;
  }

  /** Whether {@code --help} leaves it out. */
  public boolean hidden() {
    return field != null && field.hidden();
  }

  /** Whether jkubelet accepts it without effect ({@link #reason()} says why). */
  public boolean isIgnored() {
    return reason != null;
  }

  /** Why an {@linkplain #isIgnored ignored} setting has no effect; null otherwise. */
  public String reason() {
    return reason;
  }

  /** What it does, as declared. */
  public String doc() {
    return doc;
  }

  /** The default, as written on the command line; with {@code file}, a file's. */
  public String defaultText(boolean file) {
    return file ? fileValue : value;
  }

  /** The default value; with {@code file}, when a configuration file is given. */
  public Object defaultValue(boolean file) {
    return file ? fileDefault : defaultValue;
  }

  /**
   * The text of {@code --help} and of the docs: the doc, then the field and the default, e.g.
   * {@code The most pods this node runs (maxPods, default 110).}
   */
  public String description() {
    if (isIgnored()) {
      return doc + " (" + (inFile ? name : "flag only") + ").";
    }
    String d = doc.endsWith(".") ? doc.substring(0, doc.length() - 1) : doc;
    StringBuilder meta = new StringBuilder(inFile ? name : "flag only");
    if (!value.isEmpty()) {
      meta.append(", default ").append(value);
    }
    if (!fileValue.equals(value)) {
      meta.append("; ")
          .append(fileValue.isEmpty() ? "none" : fileValue)
          .append(" in a config file");
    }
    return d + " (" + meta + ").";
  }

  /** The line logged once when an ignored setting is given. */
  public String ignoredNotice(String given) {
    return given + " is accepted without effect: " + reason;
  }

  /**
   * Reads a file's value, checking only its type.
   *
   * @throws ConfigException naming this field, or a part of it
   */
  Object fromJson(JsonNode v) {
    return type.fromJson(name, v);
  }

  /**
   * Whether a file's value leaves the default, as upstream's defaulting does: null, {@code 0s} for
   * a duration, and Go's zero value where the declaration says so. A value of the wrong type is
   * never unset, so that reading it reports the error.
   */
  boolean unset(JsonNode v) {
    if (v.isNull()) {
      return true;
    }
    if (type == Type.DURATION) {
      if (!v.isTextual()) {
        return false;
      }
      try {
        return Durations.parse(v.textValue()).equals(Duration.ZERO);
      } catch (IllegalArgumentException e) {
        return false;
      }
    }
    if (field == null || !field.zeroIsUnset()) {
      return false;
    }
    return (v.isIntegralNumber() && v.asLong() == 0) || (v.isTextual() && v.textValue().isEmpty());
  }

  /**
   * Checks a value against the declaration: range, allowed values, then each {@link Check}.
   *
   * @throws ConfigException naming this setting
   */
  public void check(Object v) {
    if (field == null) {
      for (Check c : checks) {
        c.check(name, v);
      }
      return;
    }
    if (v instanceof Number n && (field.min() != Long.MIN_VALUE || field.max() != Long.MAX_VALUE)) {
      long x = n.longValue();
      if (x < field.min() || x > field.max()) {
        throw new ConfigException(
            name,
            field.max() != Long.MAX_VALUE
                ? x + " must be between " + field.min() + " and " + field.max() + ", inclusive"
                : field.min() == 0
                    ? x + " must not be a negative number" // upstream's words
                    : "must be at least " + field.min() + ", got " + x);
      }
    }
    // A string whose default is none may be left empty: it is then unset.
    boolean unset = "".equals(v) && field.value().isEmpty();
    if (field.oneOf().length > 0 && !unset && !Arrays.asList(field.oneOf()).contains(v)) {
      throw new ConfigException(name, "must be " + either(field.oneOf()) + ", got \"" + v + "\"");
    }
    for (Check c : checks) {
      c.check(name, v);
    }
  }

  private static String either(String[] values) {
    int n = values.length;
    return n == 1
        ? values[0]
        : String.join(", ", Arrays.asList(values).subList(0, n - 1)) + " or " + values[n - 1];
  }

  @Override
  public String toString() {
    return name;
  }
}
