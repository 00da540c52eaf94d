package io.jkubelet.config;

import java.util.HashMap;
import java.util.Map;
import java.util.function.Function;

/**
 * Mutable builder of {@link KubeletConfiguration}, by setting: each {@link #set} replaces one
 * setting's value, named as in a file; nothing is validated until {@link ConfigValidator#validate}.
 * Not thread-safe.
 *
 * <p>Example: {@code KubeletConfiguration.builder().set("maxPods", 2).set("port", 0).build()}.
 */
public final class KubeletConfigurationBuilder {
  private final Map<Setting, Object> values = new HashMap<>();

  private KubeletConfigurationBuilder(Function<Setting, Object> value) {
    for (Setting s : declared()) {
      values.put(s, value.apply(s));
    }
  }

  /** Every setting at its default; with {@code file}, a configuration file's. */
  static KubeletConfigurationBuilder defaults(boolean file) {
    return new KubeletConfigurationBuilder(s -> s.defaultValue(file));
  }

  /** Every setting as {@code c} has it. */
  static KubeletConfigurationBuilder of(KubeletConfiguration c) {
    return new KubeletConfigurationBuilder(s -> Settings.read(c, s));
  }

  private static Iterable<Setting> declared() {
    return Settings.of(KubeletConfiguration.class);
  }

  /**
   * Sets one setting.
   *
   * @param name the setting's {@linkplain Setting#name() name}, e.g. {@code maxPods} or {@code
   *     authentication.webhook.enabled}
   * @param value a value of its type ({@link Type#javaType()}), or null to have {@link #build()}
   *     reject it
   * @throws IllegalArgumentException for an unknown name or a value of another type
   */
  public KubeletConfigurationBuilder set(String name, Object value) {
    return set(
        Settings.named(name)
            .filter(s -> !s.isIgnored())
            .orElseThrow(() -> new IllegalArgumentException("no setting " + name)),
        value);
  }

  /** As {@link #set(String, Object)}. */
  public KubeletConfigurationBuilder set(Setting s, Object value) {
    if (value != null && !s.type().javaType().isInstance(value)) {
      throw new IllegalArgumentException(
          s.name() + " takes a " + s.type().javaType().getSimpleName() + ", got " + value);
    }
    if (!values.containsKey(s)) {
      throw new IllegalArgumentException(s.name() + " is not a setting of the configuration");
    }
    values.put(s, value);
    return this;
  }

  /** Sets every setting of a settings record, such as a {@link CgroupSettings}, to its value. */
  public KubeletConfigurationBuilder with(Record settings) {
    @SuppressWarnings("unchecked")
    Class<? extends Record> type = settings.getClass();
    for (Setting s : Settings.of(type)) {
      values.put(s, Settings.read(settings, s));
    }
    return this;
  }

  /** The value set so far of the setting named {@code name}. */
  public Object get(String name) {
    return values.get(Settings.named(name).orElseThrow());
  }

  /**
   * @return a new configuration with the values set so far
   * @throws NullPointerException if a reference setting was set to null
   * @throws ConfigException if a settings record refuses a value in its constructor
   */
  public KubeletConfiguration build() {
    return Settings.build(KubeletConfiguration.class, values::get);
  }
}
