package io.jkubelet.agent.certificates;

import java.nio.file.Path;
import java.time.Clock;
import java.util.Optional;

/**
 * Where the current client certificate is kept, as client-go's {@code certificate.Store}. {@link
 * #files} is upstream's file store: each certificate in {@code <dir>/<prefix>-<timestamp>.pem} (the
 * chain and the key), and {@code <prefix>-current.pem} a symbolic link to the one in use.
 */
interface CertificateStore {
  /**
   * The current certificate and key; empty when there is none.
   *
   * @throws StoreException when the current file exists but cannot be read or used
   */
  Optional<ClientCertificate> current();

  /**
   * Writes a new certificate and key and makes them current in one step.
   *
   * @return what was stored, read back
   * @throws StoreException naming the file that could not be written
   */
  ClientCertificate update(ClientCertificate certificate);

  /** The path of the current pair ({@code <dir>/<prefix>-current.pem}), which kubeconfigs name. */
  Path currentPath();

  /**
   * The file store in {@code dir} for files named {@code prefix} (the kubelet's is {@code
   * kubelet-client}); made if missing, and an interrupted swap of the current link finished, as
   * upstream's {@code NewFileStore}.
   *
   * @throws io.jkubelet.config.ConfigException naming {@code --cert-dir} when the directory cannot
   *     be made or written
   * @throws StoreException when an interrupted swap cannot be recovered
   */
  static CertificateStore files(Path dir, String prefix, Clock clock) {
    return FileStore.open(dir, prefix, clock);
  }
}
