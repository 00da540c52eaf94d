package io.jkubelet.agent.prober;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import java.util.List;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(20)
class ProberHttpsTest {
  @Test
  void httpsTrustsASelfSignedCertificateForAnotherHost() throws Exception {
    KeyPairGenerator gen = KeyPairGenerator.getInstance("RSA");
    gen.initialize(2048);
    KeyPair kp = gen.generateKeyPair();
    Instant now = Instant.now();
    X509Certificate cert =
        new JcaX509CertificateConverter()
            .getCertificate(
                new JcaX509v3CertificateBuilder(
                        new X500Name("CN=not-this-host"),
                        BigInteger.ONE,
                        Date.from(now.minus(Duration.ofDays(1))),
                        Date.from(now.plus(Duration.ofDays(1))),
                        new X500Name("CN=not-this-host"),
                        kp.getPublic())
                    .build(new JcaContentSignerBuilder("SHA256withRSA").build(kp.getPrivate())));
    KeyStore ks = KeyStore.getInstance("PKCS12");
    ks.load(null, null);
    ks.setKeyEntry("k", kp.getPrivate(), "pw".toCharArray(), new X509Certificate[] {cert});
    KeyManagerFactory kmf = KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
    kmf.init(ks, "pw".toCharArray());
    SSLContext ssl = SSLContext.getInstance("TLS");
    ssl.init(kmf.getKeyManagers(), null, null);

    HttpsServer server =
        HttpsServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
    server.setHttpsConfigurator(new HttpsConfigurator(ssl));
    server.createContext(
        "/",
        ex -> {
          ex.sendResponseHeaders(200, -1);
          ex.close();
        });
    server.start();
    ProbeHttp http = new ProbeHttp(Prober.MAX_BODY_BYTES);
    http.start();
    try {
      ProbeOutcome o =
          new Prober.HttpGetProber(
                  Prober.Scheme.HTTPS, null, server.getAddress().getPort(), "/", List.of(), http)
              .probe(new ProbeTarget("127.0.0.1", null, Duration.ofSeconds(5)));
      assertThat(o).isEqualTo(ProbeOutcome.success(""));
    } finally {
      http.stop();
      server.stop(0);
    }
  }
}
