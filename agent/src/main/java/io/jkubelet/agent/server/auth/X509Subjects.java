package io.jkubelet.agent.server.auth;

import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.List;
import javax.naming.InvalidNameException;
import javax.naming.ldap.LdapName;
import javax.naming.ldap.Rdn;

/** The subject of a client certificate, as upstream's x509 authenticator reads it. */
final class X509Subjects {
  private X509Subjects() {}

  /** CN is the user name, each O a group; plus {@code system:authenticated}. */
  static Subject of(X509Certificate cert) {
    String cn = "";
    List<String> groups = new ArrayList<>();
    try {
      // NOTE: LdapName lists RDNs right to left; groups keep the certificate's order.
      for (Rdn rdn : new LdapName(cert.getSubjectX500Principal().getName()).getRdns().reversed()) {
        if (rdn.getType().equalsIgnoreCase("CN")) {
          cn = rdn.getValue().toString();
        } else if (rdn.getType().equalsIgnoreCase("O")) {
          groups.add(rdn.getValue().toString());
        }
      }
    } catch (InvalidNameException e) {
      throw new IllegalArgumentException("client certificate subject: " + e.getMessage(), e);
    }
    groups.add("system:authenticated");
    return new Subject(cn, groups);
  }
}
