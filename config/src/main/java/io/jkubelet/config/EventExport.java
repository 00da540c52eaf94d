package io.jkubelet.config;

import java.util.Objects;

/**
 * jkubelet's {@code eventExport}: {@code url} (an Elasticsearch 7/8 or OpenSearch 1/2 endpoint,
 * http or https, optionally with {@code user:password@}), {@code credentialsFile} (one line {@code
 * user:password}), {@code caFile} (PEM), {@code index} (the prefix of the daily indices {@code
 * <index>-YYYY.MM.DD}), {@code spoolMax} (a quantity: the bound of the on-disk spool), {@code file}
 * (JSON lines) and {@code fileMaxSize} (a quantity: the size at which the file is rotated). Empty
 * {@code url} and {@code file}: no export.
 */
public record EventExport(
    String url,
    String credentialsFile,
    String caFile,
    String index,
    String spoolMax,
    String file,
    String fileMaxSize) {
  public static final EventExport NONE =
      new EventExport("", "", "", "jkubelet-events", "1Gi", "", "100Mi");

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

  public EventExport withUrl(String v) {
    return new EventExport(v, credentialsFile, caFile, index, spoolMax, file, fileMaxSize);
  }

  public EventExport withCredentialsFile(String v) {
    return new EventExport(url, v, caFile, index, spoolMax, file, fileMaxSize);
  }

  public EventExport withCaFile(String v) {
    return new EventExport(url, credentialsFile, v, index, spoolMax, file, fileMaxSize);
  }

  public EventExport withIndex(String v) {
    return new EventExport(url, credentialsFile, caFile, v, spoolMax, file, fileMaxSize);
  }

  public EventExport withSpoolMax(String v) {
    return new EventExport(url, credentialsFile, caFile, index, v, file, fileMaxSize);
  }

  public EventExport withFile(String v) {
    return new EventExport(url, credentialsFile, caFile, index, spoolMax, v, fileMaxSize);
  }

  public EventExport withFileMaxSize(String v) {
    return new EventExport(url, credentialsFile, caFile, index, spoolMax, file, v);
  }
}
