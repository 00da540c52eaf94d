package io.jkubelet.agent.cli;

import io.jkubelet.agent.export.BulkExporter;
import io.jkubelet.agent.export.ExportOptions;
import io.jkubelet.agent.export.ExportSink;
import io.jkubelet.agent.export.ExportTarget;
import io.jkubelet.agent.export.Exporter;
import io.jkubelet.agent.export.JsonLinesExporter;
import io.jkubelet.agent.util.Time;
import io.jkubelet.config.ConfigException;
import io.jkubelet.config.ConfigValidator;
import io.jkubelet.config.EventExport;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The event exporters of an {@code eventExport} configuration, for {@code run} and {@code
 * export-events}. The flags themselves come from {@code EventExport}'s declarations ({@link
 * SettingFlags}).
 */
final class ExportFlags {
  private ExportFlags() {}

  /**
   * The export sink of an {@code eventExport} configuration (validated), with its spool under
   * {@code <rootDir>/events-spool}; null when nothing is exported.
   */
  static ExportSink sink(EventExport e, Path rootDir, Time time) {
    List<Exporter> exporters = exporters(e, rootDir, time);
    return exporters.isEmpty() ? null : new ExportSink(time.clock(), exporters);
  }

  /** The exporters of an {@code eventExport} configuration (validated). */
  static List<Exporter> exporters(EventExport e, Path rootDir, Time time) {
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
          new BulkExporter(
              target, ExportOptions.defaults(rootDir.resolve("events-spool"), max), time));
    }
    if (!e.file().isEmpty()) {
      long max = ConfigValidator.bytes("eventExport.fileMaxSize", e.fileMaxSize());
      out.add(new JsonLinesExporter(Path.of(e.file()), max, JsonLinesExporter.DEFAULT_KEEP));
    }
    return out;
  }
}
