package io.jkubelet.agent.cli;

import io.jkubelet.config.EventExport;
import io.jkubelet.config.KubeletConfigurationBuilder;
import java.util.Map;
import picocli.CommandLine.Option;

/**
 * The event export flags (a picocli mixin of {@code run} and {@code export-events}). Each overlays
 * the field of jkubelet's {@code eventExport} named in its description when given.
 */
final class ExportFlags {
  @Option(
      names = "--event-export-url",
      paramLabel = "URL",
      description =
          "Export events to this Elasticsearch 7/8 or OpenSearch 1/2 endpoint (http or https,"
              + " optionally with user:password@) (eventExport.url).")
  String url;

  @Option(
      names = "--event-export-credentials",
      paramLabel = "FILE",
      description =
          "A file of one line user:password for the export (eventExport.credentialsFile).")
  String credentialsFile;

  @Option(
      names = "--event-export-ca-file",
      paramLabel = "FILE",
      description = "PEM CA certificates the export's https trusts (eventExport.caFile).")
  String caFile;

  @Option(
      names = "--event-export-index",
      paramLabel = "NAME",
      description =
          "Prefix of the daily indices NAME-YYYY.MM.DD (eventExport.index, default"
              + " jkubelet-events).")
  String index;

  @Option(
      names = "--event-export-spool-max",
      paramLabel = "QUANTITY",
      description =
          "Bound of the on-disk spool of events not yet accepted by the server (eventExport.spoolMax,"
              + " default 1Gi).")
  String spoolMax;

  @Option(
      names = "--event-export-file",
      paramLabel = "PATH",
      description = "Also export events as JSON lines to this file (eventExport.file).")
  String file;

  @Option(
      names = "--event-export-file-max-size",
      paramLabel = "QUANTITY",
      description =
          "Size at which the JSON-lines file is rotated, 5 kept (eventExport.fileMaxSize, default"
              + " 100Mi).")
  String fileMaxSize;

  /** Sets the fields of the flags that were given, remembering which flag set each. */
  void overlay(KubeletConfigurationBuilder b, Map<String, String> flagOf) {
    b.eventExport(apply(b.eventExport(), flagOf));
  }

  /** {@code base} with the flags that were given. */
  EventExport apply(EventExport base, Map<String, String> flagOf) {
    EventExport e = base;
    e = set(e, flagOf, url, "url", "--event-export-url");
    e = set(e, flagOf, credentialsFile, "credentialsFile", "--event-export-credentials");
    e = set(e, flagOf, caFile, "caFile", "--event-export-ca-file");
    e = set(e, flagOf, index, "index", "--event-export-index");
    e = set(e, flagOf, spoolMax, "spoolMax", "--event-export-spool-max");
    e = set(e, flagOf, file, "file", "--event-export-file");
    e = set(e, flagOf, fileMaxSize, "fileMaxSize", "--event-export-file-max-size");
    return e;
  }

  private static EventExport set(
      EventExport e, Map<String, String> flagOf, String value, String field, String flag) {
    if (value == null) {
      return e;
    }
    flagOf.put("eventExport." + field, flag);
    return switch (field) {
      case "url" -> e.withUrl(value);
      case "credentialsFile" -> e.withCredentialsFile(value);
      case "caFile" -> e.withCaFile(value);
      case "index" -> e.withIndex(value);
      case "spoolMax" -> e.withSpoolMax(value);
      case "file" -> e.withFile(value);
      default -> e.withFileMaxSize(value);
    };
  }
}
