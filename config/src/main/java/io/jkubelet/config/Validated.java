package io.jkubelet.config;

/**
 * A settings record with rules that span its fields (the low image GC threshold below the high one,
 * for instance). {@link ConfigValidator} calls {@link #validate()} after the record's fields passed
 * their own checks.
 */
public interface Validated {
  /**
   * @throws ConfigException naming the field that breaks a rule
   */
  void validate();
}
