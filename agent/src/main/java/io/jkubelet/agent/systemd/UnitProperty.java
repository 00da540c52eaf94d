package io.jkubelet.agent.systemd;

import java.util.List;
import java.util.Objects;

/**
 * One property of a unit as {@code StartTransientUnit} and {@code SetUnitProperties} take it: a
 * name and a typed D-Bus value.
 *
 * @param name e.g. {@code MemoryMax}
 * @param value its value, of the D-Bus type systemd expects for that name
 */
public record UnitProperty(String name, Value value) {
  /** {@code uint64}'s largest value, which systemd reads as {@code infinity}. */
  public static final long INFINITY = -1L;

  public UnitProperty {
    Objects.requireNonNull(name, "name");
    Objects.requireNonNull(value, "value");
  }

  /** A D-Bus value. */
  public sealed interface Value permits U64, Bool, Str, Strs {}

  /**
   * {@code t}, read unsigned: {@link #INFINITY} ({@code -1}) is 2^64-1.
   *
   * @param value the bits of the unsigned value
   */
  public record U64(long value) implements Value {
    @Override
    public String toString() {
      return value == INFINITY ? "infinity" : Long.toUnsignedString(value);
    }
  }

  /** {@code b}. */
  public record Bool(boolean value) implements Value {}

  /** {@code s}. */
  public record Str(String value) implements Value {}

  /** {@code as}. */
  public record Strs(List<String> value) implements Value {
    public Strs {
      value = List.copyOf(value);
    }
  }

  public static UnitProperty u64(String name, long value) {
    return new UnitProperty(name, new U64(value));
  }

  public static UnitProperty bool(String name, boolean value) {
    return new UnitProperty(name, new Bool(value));
  }

  public static UnitProperty str(String name, String value) {
    return new UnitProperty(name, new Str(value));
  }

  public static UnitProperty strs(String name, List<String> value) {
    return new UnitProperty(name, new Strs(value));
  }

  @Override
  public String toString() {
    return name
        + "="
        + switch (value) {
          case U64 v -> v.toString();
          case Bool v -> Boolean.toString(v.value());
          case Str v -> v.value();
          case Strs v -> String.join(" ", v.value());
        };
  }
}
