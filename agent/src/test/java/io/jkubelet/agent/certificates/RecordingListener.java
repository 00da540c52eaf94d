package io.jkubelet.agent.certificates;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/** Records the certificate events it is given. */
final class RecordingListener implements CertificateEvent.Listener {
  final List<CertificateEvent> events = new CopyOnWriteArrayList<>();

  @Override
  public void on(CertificateEvent event) {
    events.add(event);
  }

  List<String> reasons() {
    return events.stream().map(CertificateEvent::reason).toList();
  }
}
