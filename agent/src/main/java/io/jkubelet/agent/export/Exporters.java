package io.jkubelet.agent.export;

import io.jkubelet.agent.util.Time;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.ConfigValidator;
import io.jkubelet.config.EventExport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/** The exporters of an {@code eventExport} configuration: the factory at the package's edge. */
public final class Exporters {
  private Exporters() {}

  /**
   * The agent's export sink for {@code e}, or empty when the configuration exports nowhere.
   *
   * @throws ConfigException naming {@code eventExport} for a target that cannot be used
   */
  public static Optional<ExportSink> sink(EventExport e, Path rootDir, Time time) {
    List<Exporter> exporters = of(e, rootDir, time);
    return exporters.isEmpty()
        ? Optional.empty()
        : Optional.of(new ExportSink(time.clock(), exporters));
  }

  /** The exporters of an {@code eventExport} configuration (validated). */
  public static List<Exporter> of(EventExport e, Path rootDir, Time time) {
    List<Exporter> out = new ArrayList<>();
    if (!e.url().isEmpty()) {
      ExportTarget target;
      try {
        target =
            ExportTarget.parse(
                e.url(),
                e.credentialsFile().isEmpty() ? null : Path.of(e.credentialsFile()),
                e.caFile().isEmpty() ? null : Path.of(e.caFile()),
                e.index());
        target.checkCa();
      } catch (IllegalArgumentException x) {
        throw new ConfigException("eventExport", x.getMessage());
      }
      long max = ConfigValidator.bytes("eventExport.spoolMax", e.spoolMax());
      out.add(
          BulkExporter.create(
              target, ExportOptions.defaults(rootDir.resolve("events-spool"), max), time));
    }
    if (!e.file().isEmpty()) {
      long max = ConfigValidator.bytes("eventExport.fileMaxSize", e.fileMaxSize());
      out.add(new JsonLinesExporter(Path.of(e.file()), max, JsonLinesExporter.DEFAULT_KEEP));
    }
    return out;
  }
}
