package io.jkubelet.agent.cli;

import io.jkubelet.config.ConfigException;
import io.jkubelet.config.EventExport;
import io.jkubelet.config.KubeletConfigurationBuilder;
import io.jkubelet.config.Setting;
import io.jkubelet.config.Settings;
import io.jkubelet.config.Type;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.IModelTransformer;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;

/**
 * The flags of the declared settings ({@link Settings}), made into picocli options: one option per
 * setting with a flag, with upstream's name, its label and the declaration's description (its field
 * and default), as upstream's {@code AddKubeletConfigFlags} binds each flag to its field. After a
 * parse, {@link #overlay} sets each flag given on the configuration. Nothing here knows a setting
 * by name: a new setting's flag comes from its declaration.
 *
 * <p>Not thread-safe; one instance per parsed command line.
 */
final class SettingFlags {
  private final Map<OptionSpec, Setting> options = new LinkedHashMap<>();

  private SettingFlags() {}

  /**
   * Adds the flags of {@code settings} to {@code spec}, before its own options (which are the flags
   * that are no setting, then {@code -v}, {@code -h} and {@code -V}).
   */
  static SettingFlags add(CommandSpec spec, List<Setting> settings) {
    SettingFlags flags = new SettingFlags();
    List<OptionSpec> own = new ArrayList<>(spec.options());
    own.forEach(spec::remove);
    for (Setting s : settings) {
      if (s.flags().isEmpty()) {
        continue;
      }
      OptionSpec.Builder o =
          OptionSpec.builder(s.flags().toArray(String[]::new))
              .paramLabel(s.label())
              .hidden(s.hidden())
              // picocli formats descriptions: a % of a default (10%) would be a format specifier.
              .description(s.description().replace("%", "%%"));
      switch (s.type().shape()) {
        case SWITCH -> o.type(Boolean.class).arity("0..1").fallbackValue("true");
        case SCALAR -> o.type(String.class).arity("1");
        case LIST -> o.type(List.class).auxiliaryTypes(String.class).arity("1");
      }
      OptionSpec option = o.build();
      spec.addOption(option);
      flags.options.put(option, s);
    }
    own.forEach(spec::addOption);
    return flags;
  }

  /**
   * Sets each setting whose flag was given on {@code b}, parsed with the setting's type, and
   * records in {@code flagOf} which flag set which field, so that an error names what the user
   * typed.
   *
   * @return one line per flag given of a setting accepted without effect, saying why
   * @throws ConfigException naming the flag when a value is not of its setting's type
   */
  List<String> overlay(KubeletConfigurationBuilder b, Map<String, String> flagOf) {
    List<String> ignored = new ArrayList<>();
    for (Map.Entry<OptionSpec, Setting> e : options.entrySet()) {
      Object v = e.getKey().getValue();
      if (v == null) {
        continue;
      }
      Setting s = e.getValue();
      String flag = e.getKey().longestName();
      List<String> given =
          v instanceof List<?> l ? l.stream().map(String::valueOf).toList() : List.of(v.toString());
      Object value = s.type().fromFlag(flag, given);
      if (s.isIgnored()) {
        try {
          s.check(value);
        } catch (ConfigException x) {
          throw ConfigException.causedBy(flag, x.problem(), x);
        }
        ignored.add(s.ignoredNotice(flag));
        continue;
      }
      if (s.type() == Type.BOOL_MAP && b.get(s.name()) instanceof Map<?, ?> file) {
        // As upstream's feature gates: the flag's gates over the file's, not instead of them.
        Map<Object, Object> merged = new LinkedHashMap<>(file);
        merged.putAll((Map<?, ?>) value);
        value = merged;
      }
      b.set(s, value);
      flagOf.put(s.name(), flag);
    }
    return ignored;
  }

  /**
   * {@code e} naming the flag that set its field (or the field of which it is a part, as {@code
   * kubeReserved} of {@code kubeReserved.memory}); {@code e} itself when no flag did.
   */
  static ConfigException named(ConfigException e, Map<String, String> flagOf) {
    String field = e.field();
    while (true) {
      String flag = flagOf.get(field);
      if (flag != null) {
        return ConfigException.causedBy(flag, e.problem(), e);
      }
      int i = Math.max(field.lastIndexOf('.'), field.lastIndexOf('['));
      if (i <= 0) {
        return e;
      }
      field = field.substring(0, i);
    }
  }

  /** {@code run}'s: the flag of every setting. */
  static final class Run implements IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec spec) {
      ((RunCommand) spec.userObject()).settingFlags = add(spec, Settings.all());
      return spec;
    }
  }

  /** {@code export-events}': the flags of {@code eventExport}. */
  static final class Export implements IModelTransformer {
    @Override
    public CommandSpec transform(CommandSpec spec) {
      ((ExportEventsCommand) spec.userObject()).settingFlags =
          add(spec, Settings.of(EventExport.class));
      return spec;
    }
  }
}
