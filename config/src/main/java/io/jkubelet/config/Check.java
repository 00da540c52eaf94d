package io.jkubelet.config;

/**
 * A check of one setting's value, named in {@link Field#check()}. Implementations have a public
 * constructor without parameters and keep no state; {@link Checks} holds them.
 */
public interface Check {
  /**
   * @param field the setting's name, for the exception
   * @param value the value, of the setting's type
   * @throws ConfigException naming {@code field} when the value is not acceptable
   */
  void check(String field, Object value);
}
