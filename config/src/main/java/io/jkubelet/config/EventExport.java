package io.jkubelet.config;

/**
 * jkubelet's {@code eventExport}: where jkubelet exports its own events, an Elasticsearch 7/8 or
 * OpenSearch 1/2 endpoint and/or a JSON-lines file. Empty {@code url} and {@code file}: no export.
 */
@Mapping("eventExport")
public record EventExport(
    @Field(
            check = Checks.SecretUrl.class,
            doc =
                "Export events to this Elasticsearch 7/8 or OpenSearch 1/2 endpoint (http or https,"
                    + " optionally with user:password@)")
        String url,
    @Field(
            flag = "--event-export-credentials",
            doc = "A file of one line user:password for the export")
        String credentialsFile,
    @Field(doc = "PEM CA certificates the export's https trusts") String caFile,
    @Field(
            label = "NAME",
            value = "jkubelet-events",
            check = Checks.IndexName.class,
            doc = "Prefix of the daily indices NAME-YYYY.MM.DD")
        String index,
    @Field(
            label = "QUANTITY",
            value = "1Gi",
            check = Checks.AtLeastMebibyte.class,
            doc = "Bound of the on-disk spool of events not yet accepted by the server")
        String spoolMax,
    @Field(label = "PATH", doc = "Also export events as JSON lines to this file") String file,
    @Field(
            label = "QUANTITY",
            value = "100Mi",
            check = Checks.AtLeastKibibyte.class,
            doc = "Size at which the JSON-lines file is rotated, 5 kept")
        String fileMaxSize) {
  public static final EventExport NONE = Settings.defaults(EventExport.class, false);

  /** Whether anything is exported. */
  public boolean enabled() {
    return !url.isEmpty() || !file.isEmpty();
  }
}
