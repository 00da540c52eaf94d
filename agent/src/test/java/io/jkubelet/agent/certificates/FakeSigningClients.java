package io.jkubelet.agent.certificates;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * {@link SigningClients} that hand out one fake API and record with which credentials: {@code node
 * <serial>} or {@code bootstrap <file>}. A settable error stands for an unusable bootstrap
 * kubeconfig.
 */
final class FakeSigningClients implements SigningClients {
  final FakeSigningRequests api;
  final List<String> opened = new ArrayList<>();
  RuntimeException bootstrapError;

  FakeSigningClients(FakeSigningRequests api) {
    this.api = api;
  }

  @Override
  public synchronized SigningRequests asNode(ClientCertificate certificate) {
    opened.add("node " + certificate.serial().toString(16));
    return api;
  }

  @Override
  public synchronized SigningRequests withBootstrapCredentials(Path bootstrapKubeconfig) {
    if (bootstrapError != null) {
      throw bootstrapError;
    }
    opened.add("bootstrap " + bootstrapKubeconfig);
    return api;
  }
}
