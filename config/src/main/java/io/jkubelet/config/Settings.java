package io.jkubelet.config;

import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.RecordComponent;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * Every setting jkubelet knows, read once from the declarations: the {@link Field}s of {@link
 * KubeletConfiguration}'s components and of its settings records, in component order, then the
 * upstream settings it accepts without effect ({@link UpstreamFields#IGNORED}).
 *
 * <p>The settings records are built and read generically from these declarations, so a record needs
 * no builder or with-ers: {@link #build} makes a record from a value per setting, {@link #read}
 * reads one back, and {@link #defaults} makes a record of defaults. {@link #validate} runs each
 * declaration's checks, then the record's own rules ({@link Validated}).
 *
 * <p>Thread-safe: everything is computed in the static initializer and immutable after.
 */
public final class Settings {
  private Settings() {}

  /** A record type and, per component, its setting or its nested group. */
  private record Group(Class<?> type, Constructor<?> constructor, List<Object> members) {}

  private static final Map<Class<?>, Group> GROUPS = new LinkedHashMap<>();
  private static final List<Setting> DECLARED = new ArrayList<>();
  private static final List<Setting> ALL;
  private static final Map<String, Setting> BY_NAME = new LinkedHashMap<>();
  private static final Map<String, Setting> BY_FLAG = new LinkedHashMap<>();

  static {
    group(KubeletConfiguration.class, new ArrayList<>());
    List<Setting> all = new ArrayList<>(DECLARED);
    all.addAll(UpstreamFields.IGNORED);
    ALL = Collections.unmodifiableList(all);
    for (Setting s : ALL) {
      if (BY_NAME.put(s.name(), s) != null) {
        throw new IllegalStateException("setting " + s.name() + " is declared twice");
      }
      for (String f : s.flags()) {
        if (BY_FLAG.put(f, s) != null) {
          throw new IllegalStateException("flag " + f + " is declared twice");
        }
      }
    }
  }

  private static Group group(Class<?> type, List<RecordComponent> path) {
    List<Object> members = new ArrayList<>();
    RecordComponent[] components = type.getRecordComponents();
    Class<?>[] types = new Class<?>[components.length];
    for (int i = 0; i < components.length; i++) {
      RecordComponent c = components[i];
      types[i] = c.getType();
      List<RecordComponent> p = new ArrayList<>(path);
      p.add(c);
      if (c.isAnnotationPresent(Field.class)) {
        Setting s = new Setting(p);
        DECLARED.add(s);
        members.add(s);
      } else if (c.getType().isRecord()) {
        members.add(group(c.getType(), p));
      } else {
        throw new IllegalStateException(
            type.getSimpleName()
                + "."
                + c.getName()
                + " is neither declared nor a settings record");
      }
    }
    try {
      Group g = new Group(type, type.getDeclaredConstructor(types), List.copyOf(members));
      if (GROUPS.put(type, g) != null) {
        throw new IllegalStateException(type.getSimpleName() + " is a component twice");
      }
      return g;
    } catch (NoSuchMethodException e) {
      throw new IllegalStateException(type + " has no canonical constructor", e);
    }
  }

  /** Every setting: the declared ones in component order, then the ignored ones. */
  public static List<Setting> all() {
    return ALL;
  }

  /** The setting of that {@linkplain Setting#name() name}. */
  public static Optional<Setting> named(String name) {
    return Optional.ofNullable(BY_NAME.get(name));
  }

  /** The setting of that flag, e.g. {@code --max-pods}. */
  public static Optional<Setting> ofFlag(String flag) {
    return Optional.ofNullable(BY_FLAG.get(flag));
  }

  /** The declared settings of a settings record, its nested records' included. */
  public static List<Setting> of(Class<? extends Record> type) {
    List<Setting> out = new ArrayList<>();
    collect(group(type), out);
    return out;
  }

  private static void collect(Group g, List<Setting> out) {
    for (Object m : g.members()) {
      if (m instanceof Setting s) {
        out.add(s);
      } else {
        collect((Group) m, out);
      }
    }
  }

  /**
   * Whether {@code prefix} is the file's name of a mapping of settings, such as {@code
   * authentication} or {@code authentication.webhook}.
   */
  static boolean isMapping(String prefix) {
    for (Setting s : ALL) {
      if (s.inFile() && s.name().startsWith(prefix + ".")) {
        return true;
      }
    }
    return false;
  }

  /**
   * A record of defaults.
   *
   * @param file the defaults when a configuration file is given ({@link Field#fileValue()})
   */
  public static <R extends Record> R defaults(Class<R> type, boolean file) {
    return build(type, s -> s.defaultValue(file));
  }

  /**
   * Makes a record, and the records inside it, from a value per setting: the one place that rejects
   * a null value (but for a {@link Nullable} component) and makes lists unmodifiable, so that the
   * settings records need no constructor of their own for it.
   *
   * @throws NullPointerException naming the setting whose value is null
   * @throws ConfigException as a record's own constructor does
   */
  public static <R extends Record> R build(Class<R> type, Function<Setting, Object> values) {
    return type.cast(build(group(type), values));
  }

  private static Object build(Group g, Function<Setting, Object> values) {
    Object[] args = new Object[g.members().size()];
    RecordComponent[] components = g.type().getRecordComponents();
    for (int i = 0; i < args.length; i++) {
      Object m = g.members().get(i);
      args[i] = m instanceof Setting s ? values.apply(s) : build((Group) m, values);
      if (args[i] instanceof List<?> list) {
        args[i] = List.copyOf(list);
      } else if (args[i] == null && !components[i].isAnnotationPresent(Nullable.class)) {
        throw new NullPointerException(m instanceof Setting s ? s.name() : components[i].getName());
      }
    }
    try {
      return g.constructor().newInstance(args);
    } catch (InvocationTargetException e) {
      if (e.getCause() instanceof RuntimeException r) {
        throw r;
      }
      throw new IllegalStateException(e.getCause());
    } catch (ReflectiveOperationException | IllegalArgumentException e) {
      throw new IllegalStateException("cannot make " + g.type().getSimpleName(), e);
    }
  }

  /**
   * The value of {@code s} in {@code record}, which is {@link KubeletConfiguration} or a settings
   * record that holds {@code s}.
   */
  public static Object read(Record record, Setting s) {
    int from = 0;
    while (from < s.path.size() && s.path.get(from).getDeclaringRecord() != record.getClass()) {
      from++;
    }
    if (from == s.path.size()) {
      throw new IllegalArgumentException(s.name() + " is not in " + record.getClass());
    }
    Object v = record;
    for (RecordComponent c : s.path.subList(from, s.path.size())) {
      try {
        v = c.getAccessor().invoke(v);
      } catch (ReflectiveOperationException e) {
        throw new IllegalStateException(e);
      }
    }
    return v;
  }

  /**
   * Checks a settings record (or the whole configuration) against the declarations: each setting's
   * checks in component order, a nested record before the rest of its holder's, and each record's
   * own rules ({@link Validated}) after its settings.
   *
   * @throws ConfigException for the first setting that breaks a rule
   */
  public static void validate(Record record) {
    validate(group(record.getClass()), record);
  }

  private static void validate(Group g, Object record) {
    for (Object m : g.members()) {
      if (m instanceof Setting s) {
        s.check(read((Record) record, s));
      } else {
        Group inner = (Group) m;
        Object nested = null;
        for (RecordComponent c : g.type().getRecordComponents()) {
          if (c.getType() == inner.type()) {
            try {
              nested = c.getAccessor().invoke(record);
            } catch (ReflectiveOperationException e) {
              throw new IllegalStateException(e);
            }
          }
        }
        validate(inner, nested);
      }
    }
    if (record instanceof Validated v) {
      v.validate();
    }
  }

  private static Group group(Class<?> type) {
    Group g = GROUPS.get(type);
    if (g == null) {
      throw new IllegalArgumentException(type + " is not a settings record");
    }
    return g;
  }
}
