package io.jkubelet.agent.certificates;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.jkubelet.agent.util.FakeClock;
import io.jkubelet.config.ConfigException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileStoreTest {
  @TempDir Path tmp;
  private final FakeClock clock = new FakeClock(Instant.parse("2026-03-04T05:06:07Z"));
  private final TestCa ca = new TestCa();

  private ClientCertificate cert() {
    return ca.node("n1", clock.instant(), clock.instant().plus(Duration.ofDays(1)));
  }

  private CertificateStore open(Path dir) {
    return CertificateStore.files(dir, "kubelet-client", clock);
  }

  @Test
  void anUpdateWritesATimestampedFileAndPointsCurrentAtIt() throws Exception {
    Path dir = tmp.resolve("pki");
    CertificateStore store = open(dir);
    ClientCertificate c = cert();

    store.update(c);

    Path file = dir.resolve("kubelet-client-2026-03-04-05-06-07.pem");
    Path current = dir.resolve("kubelet-client-current.pem");
    assertThat(store.currentPath()).isEqualTo(current);
    assertThat(Files.isSymbolicLink(current)).isTrue();
    assertThat(Files.readSymbolicLink(current)).isEqualTo(file);
    assertThat(PosixFilePermissions.toString(Files.getPosixFilePermissions(file)))
        .isEqualTo("rw-------");
    String pem = Files.readString(file);
    assertThat(pem).contains("-----BEGIN CERTIFICATE-----", "-----BEGIN PRIVATE KEY-----");
    assertThat(dir.resolve("kubelet-client-updated.pem")).doesNotExist();
    ClientCertificate read = open(dir).current().orElseThrow();
    assertThat(read.leaf()).isEqualTo(c.leaf());
    assertThat(read.key().getEncoded()).isEqualTo(c.key().getEncoded());
  }

  @Test
  void aSecondUpdateSwapsCurrentAndKeepsTheOldFile() throws Exception {
    CertificateStore store = open(tmp);
    store.update(cert());
    clock.step(Duration.ofHours(1));
    ClientCertificate second = cert();

    store.update(second);

    assertThat(Files.readSymbolicLink(store.currentPath()).getFileName().toString())
        .isEqualTo("kubelet-client-2026-03-04-06-06-07.pem");
    assertThat(tmp.resolve("kubelet-client-2026-03-04-05-06-07.pem")).exists();
    assertThat(store.current().orElseThrow().serial()).isEqualTo(second.serial());
  }

  @Test
  void anEmptyStoreHasNoCurrentCertificate() {
    assertThat(open(tmp).current()).isEmpty();
  }

  @Test
  void aLeftoverUpdatedLinkWithoutCurrentBecomesCurrent() throws Exception {
    CertificateStore store = open(tmp);
    store.update(cert());
    Path file = Files.readSymbolicLink(store.currentPath());
    // Upstream's interrupted swap: current removed, updated not yet renamed.
    Files.delete(store.currentPath());
    Files.createSymbolicLink(tmp.resolve("kubelet-client-updated.pem"), file);

    CertificateStore reopened = open(tmp);

    assertThat(Files.readSymbolicLink(reopened.currentPath())).isEqualTo(file);
    assertThat(tmp.resolve("kubelet-client-updated.pem")).doesNotExist();
    assertThat(reopened.current()).isPresent();
  }

  @Test
  void aLeftoverUpdatedLinkBesideCurrentFinishesTheSwap() throws Exception {
    CertificateStore store = open(tmp);
    store.update(cert());
    clock.step(Duration.ofMinutes(1));
    ClientCertificate newer = cert();
    store.update(newer);
    Path newFile = Files.readSymbolicLink(store.currentPath());
    // A crash after the updated link was made, before it was renamed: current still the old one.
    Files.delete(store.currentPath());
    Files.createSymbolicLink(
        store.currentPath(), tmp.resolve("kubelet-client-2026-03-04-05-06-07.pem"));
    Files.createSymbolicLink(tmp.resolve("kubelet-client-updated.pem"), newFile);

    CertificateStore reopened = open(tmp);

    assertThat(reopened.current().orElseThrow().serial()).isEqualTo(newer.serial());
    assertThat(tmp.resolve("kubelet-client-updated.pem")).doesNotExist();
  }

  @Test
  void anUpdatedRegularFileIsAnErrorNamingIt() throws Exception {
    Files.writeString(tmp.resolve("kubelet-client-updated.pem"), "x");

    assertThatThrownBy(() -> open(tmp))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining(tmp.resolve("kubelet-client-updated.pem").toString())
        .hasMessageContaining("to be a symlink");
  }

  @Test
  void aCorruptCurrentFileIsAnErrorNamingIt() throws Exception {
    Path file = tmp.resolve("kubelet-client-2026-01-01-00-00-00.pem");
    Files.writeString(file, "not a pem");
    Files.createSymbolicLink(tmp.resolve("kubelet-client-current.pem"), file);

    assertThatThrownBy(() -> open(tmp).current())
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("kubelet-client-current.pem");
  }

  @Test
  void aDirectoryThatCannotBeMadeIsAConfigErrorNamingThePath() throws Exception {
    Path file = Files.writeString(tmp.resolve("a-file"), "x");
    Path dir = file.resolve("pki");

    assertThatThrownBy(() -> open(dir))
        .isInstanceOfSatisfying(
            ConfigException.class, e -> assertThat(e.field()).isEqualTo("--cert-dir"))
        .hasMessageContaining(dir.toString());
  }
}
