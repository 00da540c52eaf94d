package io.jkubelet.config;

import java.util.Objects;

/**
 * jkubelet's {@code eventExport}: where jkubelet exports its own events, an Elasticsearch 7/8 or
 * OpenSearch 1/2 endpoint and/or a JSON-lines file. Empty {@code url} and {@code file}: no export.
 */
public record EventExport(
    @Field(
            file = "eventExport.url",
            flag = "--event-export-url",
            label = "URL",
            check = Checks.SecretUrl.class,
            doc =
                "Export events to this Elasticsearch 7/8 or OpenSearch 1/2 endpoint (http or https,"
                    + " optionally with user:password@)")
        String url,
    @Field(
            file = "eventExport.credentialsFile",
            flag = "--event-export-credentials",
            label = "FILE",
            doc = "A file of one line user:password for the export")
        String credentialsFile,
    @Field(
            file = "eventExport.caFile",
            flag = "--event-export-ca-file",
            label = "FILE",
            doc = "PEM CA certificates the export's https trusts")
        String caFile,
    @Field(
            file = "eventExport.index",
            flag = "--event-export-index",
            label = "NAME",
            value = "jkubelet-events",
            check = Checks.IndexName.class,
            doc = "Prefix of the daily indices NAME-YYYY.MM.DD")
        String index,
    @Field(
            file = "eventExport.spoolMax",
            flag = "--event-export-spool-max",
            label = "QUANTITY",
            value = "1Gi",
            check = Checks.AtLeastMebibyte.class,
            doc = "Bound of the on-disk spool of events not yet accepted by the server")
        String spoolMax,
    @Field(
            file = "eventExport.file",
            flag = "--event-export-file",
            label = "PATH",
            doc = "Also export events as JSON lines to this file")
        String file,
    @Field(
            file = "eventExport.fileMaxSize",
            flag = "--event-export-file-max-size",
            label = "QUANTITY",
            value = "100Mi",
            check = Checks.AtLeastKibibyte.class,
            doc = "Size at which the JSON-lines file is rotated, 5 kept")
        String fileMaxSize) {
  public static final EventExport NONE = Settings.defaults(EventExport.class, false);

  public EventExport {
    Objects.requireNonNull(url, "eventExport.url");
    Objects.requireNonNull(credentialsFile, "eventExport.credentialsFile");
    Objects.requireNonNull(caFile, "eventExport.caFile");
    Objects.requireNonNull(index, "eventExport.index");
    Objects.requireNonNull(spoolMax, "eventExport.spoolMax");
    Objects.requireNonNull(file, "eventExport.file");
    Objects.requireNonNull(fileMaxSize, "eventExport.fileMaxSize");
  }

  /** Whether anything is exported. */
  public boolean enabled() {
    return !url.isEmpty() || !file.isEmpty();
  }
}
