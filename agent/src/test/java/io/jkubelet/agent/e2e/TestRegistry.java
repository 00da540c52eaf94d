package io.jkubelet.agent.e2e;

import com.github.dockerjava.api.DockerClient;
import com.github.dockerjava.api.async.ResultCallback;
import com.github.dockerjava.api.model.AuthConfig;
import com.github.dockerjava.api.model.PushResponseItem;
import java.io.IOException;
import java.io.StringWriter;
import java.math.BigInteger;
import java.net.InetAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.SecureRandom;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Date;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.asn1.x509.BasicConstraints;
import org.bouncycastle.asn1.x509.Extension;
import org.bouncycastle.asn1.x509.GeneralName;
import org.bouncycastle.asn1.x509.GeneralNames;
import org.bouncycastle.asn1.x509.KeyUsage;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.crypto.generators.OpenBSDBCrypt;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.testcontainers.containers.GenericContainer;
import org.testcontainers.containers.wait.strategy.Wait;
import org.testcontainers.images.builder.Transferable;
import org.testcontainers.utility.DockerImageName;

/**
 * A private image registry for the pull tests: Debian's docker-registry in a container built
 * locally by deploy/scripts/registry-image.sh and started through Testcontainers, serving TLS with
 * a certificate of a CA made here and htpasswd (bcrypt) basic auth for one user. The engine trusts
 * the CA through {@code /etc/docker/certs.d/<host:port>/ca.crt} while the registry runs. It is
 * reached at the Docker bridge's gateway address, as a registry on another host would be (not on
 * loopback, which the engine treats as insecure and would not verify).
 *
 * <p>{@link #close} stops the registry, removes the CA file, and untags the images pushed or pulled
 * here ({@link #image}).
 */
final class TestRegistry implements AutoCloseable {
  static final String LABEL = "jkubelet.test";
  static final String LABEL_VALUE = "pull";

  final String user;
  final String password;
  private final DockerClient docker;
  private final GenericContainer<?> container;
  private final String host;
  private final Path certsDir;
  private final String caPem;
  private final List<String> images = new ArrayList<>();
  private final List<Path> trusted = new ArrayList<>();

  private TestRegistry(
      DockerClient docker,
      GenericContainer<?> container,
      String host,
      String user,
      String pw,
      String caPem) {
    this.docker = docker;
    this.container = container;
    this.host = host;
    this.user = user;
    this.password = pw;
    this.caPem = caPem;
    this.certsDir = Path.of("/etc/docker/certs.d", host);
  }

  /** Builds the image if needed, starts the registry for this user, and trusts its CA. */
  static TestRegistry start(DockerClient docker, String user, String password) throws Exception {
    String image = registryImage();
    String ip = bridgeGateway(docker);
    KeyPair caKey = keys();
    X509Certificate ca = sign(caKey, caKey, "jkubelet-test-registry-ca", null, true);
    KeyPair serverKey = keys();
    X509Certificate server = sign(serverKey, caKey, "jkubelet-test-registry", ip, false);
    String htpasswd =
        user
            + ":"
            + OpenBSDBCrypt.generate(
                "2y", password.toCharArray(), new SecureRandom().generateSeed(16), 10)
            + "\n";
    GenericContainer<?> c =
        new GenericContainer<>(DockerImageName.parse(image))
            .withExposedPorts(5000)
            .withLabel(LABEL, LABEL_VALUE)
            .withCopyToContainer(Transferable.of(pem(server)), "/certs/tls.crt")
            .withCopyToContainer(
                Transferable.of(pem(new JcaPKCS8Generator(serverKey.getPrivate(), null))),
                "/certs/tls.key")
            .withCopyToContainer(Transferable.of(htpasswd), "/auth/htpasswd")
            .waitingFor(Wait.forLogMessage(".*listening on .*", 1))
            .withStartupTimeout(Duration.ofSeconds(60));
    c.start();
    TestRegistry r =
        new TestRegistry(docker, c, ip + ":" + c.getMappedPort(5000), user, password, pem(ca));
    Files.createDirectories(r.certsDir);
    Files.writeString(r.certsDir.resolve("ca.crt"), r.caPem);
    return r;
  }

  /**
   * Makes the engine trust the registry's CA at another address of this host too ({@code ip:port},
   * e.g. a proxy in front of it on the same IP, which the certificate names); undone by {@link
   * #close}.
   */
  void trust(String hostPort) throws IOException {
    Path dir = Path.of("/etc/docker/certs.d", hostPort);
    Files.createDirectories(dir);
    Files.writeString(dir.resolve("ca.crt"), caPem);
    trusted.add(dir);
  }

  /** The IP the registry listens on, the Docker bridge's gateway. */
  String ip() {
    return host.substring(0, host.lastIndexOf(':'));
  }

  /** host:port, as image names and Docker configs name the registry. */
  String host() {
    return host;
  }

  /** A name in this registry for the test's image, remembered to be untagged at the end. */
  String image(String repository, String tag) {
    String name = host + "/" + repository + ":" + tag;
    images.add(name);
    return name;
  }

  /** The credential of the registry's user, as docker-java sends it. */
  AuthConfig auth() {
    return new AuthConfig().withUsername(user).withPassword(password).withRegistryAddress(host);
  }

  /** {@code base64(user:password)}, the {@code auth} field of Docker configs. */
  String authField(String u, String pw) {
    return Base64.getEncoder().encodeToString((u + ":" + pw).getBytes(StandardCharsets.UTF_8));
  }

  /** A Docker {@code config.json} with this credential for the registry. */
  String configJson(String u, String pw) {
    return "{\"auths\":{\"" + host + "\":{\"auth\":\"" + authField(u, pw) + "\"}}}";
  }

  /** Tags the local image as {@code name}, pushes it with the registry's user, and untags it. */
  void push(String localImage, String name) throws InterruptedException {
    int colon = name.lastIndexOf(':');
    String repo = name.substring(0, colon);
    String tag = name.substring(colon + 1);
    docker.tagImageCmd(localImage, repo, tag).exec();
    try {
      List<String> errors = new ArrayList<>();
      docker
          .pushImageCmd(repo)
          .withTag(tag)
          .withAuthConfig(auth())
          .exec(
              new ResultCallback.Adapter<PushResponseItem>() {
                @Override
                public void onNext(PushResponseItem item) {
                  if (item.isErrorIndicated()) {
                    errors.add(String.valueOf(item.getErrorDetail()));
                  }
                }
              })
          .awaitCompletion(60, TimeUnit.SECONDS);
      if (!errors.isEmpty()) {
        throw new AssertionError("push of " + name + " failed: " + errors);
      }
    } finally {
      untag(name);
    }
  }

  /** Removes a tag of ours from the engine, if it is there. */
  void untag(String name) {
    try {
      docker.removeImageCmd(name).withForce(true).withNoPrune(false).exec();
    } catch (RuntimeException e) {
      // not there
    }
  }

  /** Whether the engine has this image locally. */
  boolean present(String name) {
    try {
      docker.inspectImageCmd(name).exec();
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  @Override
  public void close() throws IOException {
    try {
      images.forEach(this::untag);
    } finally {
      try {
        container.stop();
      } finally {
        Files.deleteIfExists(certsDir.resolve("ca.crt"));
        Files.deleteIfExists(certsDir);
        for (Path dir : trusted) {
          Files.deleteIfExists(dir.resolve("ca.crt"));
          Files.deleteIfExists(dir);
        }
      }
    }
  }

  /** deploy/scripts/registry-image.sh: builds the image if needed, prints its name. */
  private static String registryImage() throws IOException, InterruptedException {
    Path log = Files.createTempFile("registry-image", ".log");
    try {
      Process p =
          new ProcessBuilder(Kubectl.script("registry-image.sh").toString())
              .redirectError(log.toFile())
              .start();
      String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
      if (!p.waitFor(300, TimeUnit.SECONDS) || p.exitValue() != 0 || out.isEmpty()) {
        throw new AssertionError("registry-image.sh failed: " + Files.readString(log));
      }
      return out;
    } finally {
      Files.deleteIfExists(log);
    }
  }

  /**
   * The default bridge network's gateway: this host as containers and the engine reach it. An
   * engine may leave the gateway out of the network's IPAM config (seen with Debian's docker.io
   * 20.10 on a fresh machine): it is then the subnet's first address, as the engine gives it.
   */
  private static String bridgeGateway(DockerClient docker) {
    var config = docker.inspectNetworkCmd().withNetworkId("bridge").exec().getIpam().getConfig();
    return config.stream()
        .map(c -> c.getGateway() != null ? c.getGateway() : firstAddress(c.getSubnet()))
        .filter(g -> g != null && g.indexOf(':') < 0)
        .findFirst()
        .orElseThrow(() -> new AssertionError("the bridge network has no IPv4 gateway"));
  }

  /** The first host address of an IPv4 subnet ({@code 172.17.0.0/16}: 172.17.0.1); else null. */
  private static String firstAddress(String subnet) {
    if (subnet == null || subnet.indexOf(':') >= 0 || subnet.indexOf('/') < 0) {
      return null;
    }
    String[] octets = subnet.substring(0, subnet.indexOf('/')).split("\\.");
    if (octets.length != 4) {
      return null;
    }
    long a = 0;
    for (String o : octets) {
      a = (a << 8) | Integer.parseInt(o);
    }
    a += 1;
    return ((a >> 24) & 255) + "." + ((a >> 16) & 255) + "." + ((a >> 8) & 255) + "." + (a & 255);
  }

  private static KeyPair keys() throws Exception {
    KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
    gen.initialize(256);
    return gen.generateKeyPair();
  }

  private static X509Certificate sign(
      KeyPair subject, KeyPair issuer, String cn, String ipSan, boolean ca) throws Exception {
    Instant now = Instant.now();
    var b =
        new JcaX509v3CertificateBuilder(
                new X500Name("CN=" + (ca ? cn : "jkubelet-test-registry-ca")),
                new BigInteger(63, new SecureRandom()),
                Date.from(now.minus(Duration.ofDays(1))),
                Date.from(now.plus(Duration.ofDays(1))),
                new X500Name("CN=" + cn),
                subject.getPublic())
            .addExtension(Extension.basicConstraints, true, new BasicConstraints(ca));
    if (ca) {
      b.addExtension(
          Extension.keyUsage, true, new KeyUsage(KeyUsage.keyCertSign | KeyUsage.cRLSign));
    } else {
      b.addExtension(
          Extension.subjectAlternativeName,
          false,
          new GeneralNames(
              new GeneralName(
                  GeneralName.iPAddress, InetAddress.getByName(ipSan).getHostAddress())));
    }
    return new JcaX509CertificateConverter()
        .getCertificate(
            b.build(new JcaContentSignerBuilder("SHA256withECDSA").build(issuer.getPrivate())));
  }

  private static String pem(Object o) throws IOException {
    StringWriter s = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(s)) {
      w.writeObject(o instanceof JcaPKCS8Generator g ? g.generate() : o);
    }
    return s.toString();
  }
}
