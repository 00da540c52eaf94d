package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.Jitter;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.Set;
import java.util.function.DoubleSupplier;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;
import javax.security.auth.x500.X500Principal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * When a certificate is rotated, as client-go's {@code nextRotationDeadline}: at a random 70 to 90
 * % of its lifetime, or at once when it is not the node's (another subject, other names). Pure
 * functions of the certificate.
 */
final class RotationDeadline {
  private static final Logger log = LoggerFactory.getLogger(RotatingCertificateManager.class);

  private RotationDeadline() {}

  /** {@code notBefore} plus a uniformly random 70 to 90 % of the lifetime. */
  static Instant at(ClientCertificate c, DoubleSupplier random) {
    Duration total = c.lifetime();
    Duration jittered =
        Jitter.jitter(total, 0.2, random).minus(total.multipliedBy(3).dividedBy(10));
    return c.notBefore().plus(jittered);
  }

  /**
   * Whether {@code c} is {@code nodeName}'s (its subject) and for the {@code wanted} names, where
   * there are any.
   */
  static boolean isFor(ClientCertificate c, String nodeName, Sans wanted) {
    String name = c.leaf().getSubjectX500Principal().getName(X500Principal.RFC2253);
    Set<String> cns = new HashSet<>();
    Set<String> orgs = new HashSet<>();
    try {
      for (Rdn rdn : new LdapName(name).getRdns()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          cns.add(String.valueOf(rdn.getValue()));
        } else if (rdn.getType().equalsIgnoreCase("O")) {
          orgs.add(String.valueOf(rdn.getValue()));
        }
      }
    } catch (InvalidNameException e) {
      return false;
    }
    boolean ok = cns.contains(NodeCsr.commonName(nodeName)) && orgs.contains(NodeCsr.ORGANIZATION);
    if (!ok) {
      log.info(
          "Certificate rotation: current certificate subject {} is not CN={}, O={}; rotating now",
          name,
          NodeCsr.commonName(nodeName),
          NodeCsr.ORGANIZATION);
      return false;
    }
    // The names, where there are any to want (upstream compares them for the serving certificate).
    return wanted.isEmpty() || Sans.of(c.leaf()).equals(wanted);
  }
}
