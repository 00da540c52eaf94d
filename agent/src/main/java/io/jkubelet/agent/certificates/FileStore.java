package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.Errors;
import io.jkubelet.config.ConfigException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Clock;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The file store, ported from client-go's {@code fileStore}
 * (https://github.com/kubernetes/client-go/blob/v0.20.2/util/certificate/certificate_store.go).
 *
 * <p>An update writes {@code <prefix>-<YYYY-MM-DD-HH-MM-SS>.pem} (mode 0600, through a temporary
 * file, synced), points a new link {@code <prefix>-updated.pem} at it, and renames that link over
 * {@code <prefix>-current.pem}. The rename is atomic, so a reader sees the old pair or the new one.
 * Upstream removes the current link before the rename; a crash between the two leaves only the
 * {@code -updated} link, which {@link #open} renames into place, as upstream's {@code recover}.
 * Here a crash can also leave both links; the {@code -updated} one names a file that was complete
 * before the link was made, so {@link #open} finishes that swap too.
 *
 * <p>Not thread-safe for concurrent updates: the certificate manager is the one writer.
 */
final class FileStore implements CertificateStore {
  private static final Logger log = LoggerFactory.getLogger(FileStore.class);
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyy-MM-dd-HH-mm-ss");

  private final Path dir;
  private final String prefix;
  private final Clock clock;

  private FileStore(Path dir, String prefix, Clock clock) {
    this.dir = dir.toAbsolutePath();
    this.prefix = prefix;
    this.clock = clock;
  }

  static FileStore open(Path dir, String prefix, Clock clock) {
    FileStore s = new FileStore(dir, prefix, clock);
    s.ensureWritable();
    s.recover();
    return s;
  }

  @Override
  public Path currentPath() {
    return dir.resolve(filename("current"));
  }

  private Path updatedPath() {
    return dir.resolve(filename("updated"));
  }

  private String filename(String qualifier) {
    return prefix + "-" + qualifier + ".pem";
  }

  private void ensureWritable() {
    try {
      Files.createDirectories(dir);
      Path probe = Files.createTempFile(dir, ".write-check", ".tmp");
      Files.delete(probe);
    } catch (IOException e) {
      throw ConfigException.causedBy(
          "--cert-dir", "cannot create or write the certificate directory " + dir + ": " + e, e);
    }
  }

  /** Finishes a swap that a crash interrupted (see the class comment). */
  private void recover() {
    Path updated = updatedPath();
    if (!Files.exists(updated, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    if (!Files.isSymbolicLink(updated)) {
      throw new StoreException("expected " + updated + " to be a symlink but it is a file");
    }
    try {
      if (!Files.exists(updated)) {
        log.warn("Certificate store: removing {}, which names no file", updated);
        Files.delete(updated);
        return;
      }
      log.info(
          "Certificate store: finishing an interrupted update: {} -> {}",
          currentPath(),
          Files.readSymbolicLink(updated));
      Files.move(updated, currentPath(), StandardCopyOption.ATOMIC_MOVE);
    } catch (IOException e) {
      throw Errors.withCause(
          new StoreException("unable to rename " + updated + " to " + currentPath() + ": " + e), e);
    }
  }

  @Override
  public Optional<ClientCertificate> current() {
    Path current = currentPath();
    if (!Files.exists(current)) {
      return Optional.empty();
    }
    return Optional.of(load(current));
  }

  private static ClientCertificate load(Path file) {
    String pem;
    try {
      pem = Files.readString(file, StandardCharsets.US_ASCII);
    } catch (IOException e) {
      throw Errors.withCause(new StoreException("could not read " + file + ": " + e), e);
    }
    try {
      return Pem.pair(pem, pem);
    } catch (Pem.PemException e) {
      throw Errors.withCause(
          new StoreException(
              "could not convert data from " + file + " into cert/key pair: " + e.getMessage()),
          e);
    }
  }

  @Override
  public ClientCertificate update(ClientCertificate certificate) {
    String stamp = STAMP.format(ZonedDateTime.ofInstant(clock.instant(), clock.getZone()));
    Path file = dir.resolve(filename(stamp));
    Path tmp = dir.resolve(filename(stamp) + ".tmp");
    String pem = Pem.encode(certificate.chain()) + Pem.encode(certificate.key());
    try {
      Files.createDirectories(dir);
      Files.deleteIfExists(tmp);
      Files.createFile(
          tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE)) {
        ch.write(java.nio.ByteBuffer.wrap(pem.getBytes(StandardCharsets.US_ASCII)));
        ch.force(true);
      }
      Files.move(tmp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } catch (IOException e) {
      throw Errors.withCause(new StoreException("could not write " + file + ": " + e), e);
    }
    ClientCertificate stored = load(file);
    swapCurrent(file);
    log.info("Certificate store: {} is current: {}", file, stored.describe());
    return stored;
  }

  /** Points {@code -current} at the file, by way of the {@code -updated} link. */
  private void swapCurrent(Path file) {
    Path current = currentPath();
    Path updated = updatedPath();
    if (Files.exists(current, LinkOption.NOFOLLOW_LINKS) && !Files.isSymbolicLink(current)) {
      throw new StoreException("expected " + current + " to be a symlink but it is a file");
    }
    try {
      if (Files.exists(updated, LinkOption.NOFOLLOW_LINKS)) {
        if (!Files.isSymbolicLink(updated)) {
          throw new StoreException("expected " + updated + " to be a symlink but it is a file");
        }
        Files.delete(updated);
      }
      Files.createSymbolicLink(updated, file);
      syncDir();
      Files.move(updated, current, StandardCopyOption.ATOMIC_MOVE);
      syncDir();
    } catch (IOException e) {
      throw Errors.withCause(
          new StoreException("unable to point " + current + " at " + file + ": " + e), e);
    }
  }

  /** Makes the directory's entries durable; where a directory cannot be synced, skipped. */
  private void syncDir() {
    try (FileChannel ch = FileChannel.open(dir, StandardOpenOption.READ)) {
      ch.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      log.debug("Certificate store: cannot sync {}: {}", dir, e.toString());
    }
  }
}
