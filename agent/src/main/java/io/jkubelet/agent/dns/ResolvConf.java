package io.jkubelet.agent.dns;

import io.jkubelet.agent.runtime.SandboxConfig;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** The three parts of a resolv.conf, as upstream's {@code parseResolvConf} reads them. */
record ResolvConf(List<String> servers, List<String> searches, List<String> options) {
  static final ResolvConf EMPTY = new ResolvConf(List.of(), List.of(), List.of());

  ResolvConf {
    servers = List.copyOf(servers);
    searches = List.copyOf(searches);
    options = List.copyOf(options);
  }

  /** Parses a resolv.conf: every nameserver line; the last search and options lines win. */
  static ResolvConf parse(String text) {
    List<String> servers = new ArrayList<>();
    List<String> searches = List.of();
    List<String> options = List.of();
    for (String raw : text.split("\n")) {
      String line = raw;
      int hash = line.indexOf('#');
      if (hash >= 0) {
        line = line.substring(0, hash);
      }
      String[] f = line.trim().split("\\s+");
      if (f.length < 2) {
        continue;
      }
      List<String> rest = Arrays.asList(f).subList(1, f.length);
      switch (f[0]) {
        case "nameserver" -> servers.add(f[1]);
        case "search" -> searches = rest;
        case "options" -> options = rest;
        default -> {}
      }
    }
    return new ResolvConf(servers, searches, options);
  }

  SandboxConfig.Dns toSandbox() {
    return new SandboxConfig.Dns(servers, searches, options);
  }
}
