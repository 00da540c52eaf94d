package io.jkubelet.config;

import java.lang.reflect.RecordComponent;
import java.util.Arrays;

/**
 * The one null check of a record's references, for every record of jkubelet that wants one. A
 * component marked {@link Nullable} is not a reference it checks.
 */
public final class Records {
  private static final ClassValue<String[]> REFERENCES =
      new ClassValue<>() {
        @Override
        protected String[] computeValue(Class<?> type) {
          return Arrays.stream(type.getRecordComponents())
              .filter(c -> !c.getType().isPrimitive())
              .filter(c -> !c.isAnnotationPresent(Nullable.class))
              .map(RecordComponent::getName)
              .toArray(String[]::new);
        }
      };

  private Records() {}

  /**
   * Checks that none of a record's reference components is null, from its compact constructor.
   *
   * @param type the record
   * @param references the values of its reference (non-primitive) components that are not {@link
   *     Nullable}, in their order
   * @throws NullPointerException naming the first component that is null
   * @throws IllegalArgumentException if {@code references} are not as many as those components
   */
  public static void requireNonNull(Class<? extends Record> type, Object... references) {
    String[] names = REFERENCES.get(type);
    if (names.length != references.length) {
      throw new IllegalArgumentException(
          type.getSimpleName()
              + " has "
              + names.length
              + " references, given "
              + references.length);
    }
    for (int i = 0; i < names.length; i++) {
      if (references[i] == null) {
        throw new NullPointerException(names[i]);
      }
    }
  }
}
