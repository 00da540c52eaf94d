package io.jkubelet.config;

import java.lang.annotation.Documented;
import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * Declares a setting on the record component that holds it: its name in a configuration file, its
 * flag, its default, its checks and its doc, in one place. {@link Settings} reads these
 * declarations once and derives the rest from them: reading the file ({@link ConfigLoader}), the
 * flags ({@code cli}), the defaults ({@link Settings#defaults}), validation ({@link
 * ConfigValidator}), the {@code --help} text and the docs' table. The value's type is the
 * component's ({@link Type#of}).
 *
 * <p>A component whose type is itself a settings record (a group, such as {@link ServerSettings})
 * carries no annotation: its own components are declared. Settings that upstream accepts but
 * jkubelet does not implement are declared as {@link Setting#ignored} instead, with the reason.
 *
 * <p>Example: {@code @Field(label = "N", value = "110", min = 1, doc = "The most pods this node
 * runs") int maxPods}, whose flag is {@code --max-pods}.
 */
@Documented
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.RECORD_COMPONENT)
public @interface Field {
  /** {@link #file()} of a setting that is a flag only, as upstream's {@code KubeletFlags}. */
  String FLAG_ONLY = "-";

  /** {@link #flag()} of a field of the file only, which has no flag. */
  String NO_FLAG = "";

  /** {@link #fileValue()} when the file's default is the flag's. */
  String SAME = "\0same";

  /**
   * The name in a configuration file, dotted for a nested mapping ({@code
   * authentication.x509.clientCAFile}); "" (the default) for the component's name; {@link
   * #FLAG_ONLY} when the file has no such field. It is also the name errors give ({@link
   * ConfigException#field()}), the component's name for a flag-only setting.
   */
  String file() default "";

  /**
   * Upstream's flag names, e.g. {@code --event-qps}, where they are not the component's name in
   * kebab case; by default that name's flag ({@code maxPods} is {@code --max-pods}, {@code podCIDR}
   * is {@code --pod-cidr}); {@link #NO_FLAG} for a field of the file only.
   */
  String[] flag() default {};

  /**
   * The flag's value in {@code --help}, e.g. {@code NAME}; by default the last word of the
   * component's name where it says what the value is ({@code ...Dir} {@code DIR}, {@code ...File}
   * {@code FILE}, {@code ...Port} {@code PORT}, {@code ...Percent}, {@code ...URL}, {@code
   * ...Address} {@code IP}, {@code ...CIDR}, {@code ...Mode}; with {@code ,...} for a list), else
   * the type's ({@code DURATION}).
   */
  String label() default "";

  /**
   * The default, written as on the command line: {@code 1m}, {@code a,b}, {@code k<v,k2<v2}; by
   * default Go's zero value, as upstream's for a field it does not default: {@code false}, {@code
   * 0}, {@code 0s}, none.
   */
  String value() default "";

  /** The default when a configuration file is given, where v1beta1 defaults otherwise. */
  String fileValue() default SAME;

  /** What the setting does, one or two sentences; {@code --help} adds its field and default. */
  String doc();

  /** The least value of an integer. */
  long min() default Long.MIN_VALUE;

  /** The greatest value of an integer. */
  long max() default Long.MAX_VALUE;

  /** The only values a string may take. */
  String[] oneOf() default {};

  /** Further checks of the value, each with its own message ({@link Checks}). */
  Class<? extends Check>[] check() default {};

  /** The separator of a mapping's pairs in the flag: {@code k=v,...} or {@code k<v,...}. */
  char separator() default '=';

  /**
   * Whether Go's zero value ({@code 0}, {@code ""}) in a file leaves the default, as upstream's
   * defaulting does for fields that are not pointers. Durations always do ({@code 0s}).
   */
  boolean zeroIsUnset() default false;

  /** Whether {@code --help} leaves the flag out. */
  boolean hidden() default false;
}
