package io.jkubelet.agent.env;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.ServicePort;
import io.jkubelet.agent.util.HostPort;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * The service environment variables, as upstream's {@code getServiceEnvVarMap} and {@code
 * envvars.FromServices}: {@code <SVC>_SERVICE_HOST}, {@code <SVC>_SERVICE_PORT}, one {@code
 * <SVC>_SERVICE_PORT_<NAME>} per named port, and Docker's link variables ({@code <SVC>_PORT},
 * {@code <SVC>_PORT_<port>_<PROTO>} with {@code _PROTO}, {@code _PORT} and {@code _ADDR}).
 *
 * <p>A pod sees the services of its own namespace (when {@code enableServiceLinks} is not false)
 * and always the master service, {@code kubernetes} in {@code default}; a service of the pod's
 * namespace takes the place of a master service of the same name. Services without a cluster IP
 * (headless, or {@code None}) give no variables. Unlike upstream, whose map order is random, the
 * services come in name order. Stateless.
 */
public final class ServiceEnv {
  /** Where the master services live (upstream's {@code --master-service-namespace}). */
  public static final String MASTER_NAMESPACE = "default";

  private static final String MASTER_SERVICE = "kubernetes";

  private ServiceEnv() {}

  /** The variables a pod in {@code namespace} sees, in service name order. */
  public static Map<String, String> forNamespace(
      List<Service> services, String namespace, boolean enableServiceLinks) {
    Map<String, Service> byName = new TreeMap<>();
    for (Service s : services) {
      if (!hasClusterIp(s)) {
        continue;
      }
      String name = s.getMetadata().getName();
      String ns = s.getMetadata().getNamespace();
      if (MASTER_NAMESPACE.equals(ns) && MASTER_SERVICE.equals(name)) {
        byName.putIfAbsent(name, s);
      } else if (enableServiceLinks && namespace.equals(ns)) {
        byName.put(name, s);
      }
    }
    Map<String, String> out = new LinkedHashMap<>();
    byName.values().stream()
        .sorted(Comparator.comparing(s -> s.getMetadata().getName()))
        .forEach(s -> out.putAll(fromService(s)));
    return out;
  }

  /** One service's variables, in upstream's order. */
  static Map<String, String> fromService(Service service) {
    Map<String, String> out = new LinkedHashMap<>();
    List<ServicePort> ports = service.getSpec().getPorts();
    if (ports == null || ports.isEmpty()) {
      return out; // validation forbids it; nothing to say
    }
    String prefix = variableName(service.getMetadata().getName());
    String ip = service.getSpec().getClusterIP();
    out.put(prefix + "_SERVICE_HOST", ip);
    String portName = prefix + "_SERVICE_PORT";
    out.put(portName, Integer.toString(ports.get(0).getPort()));
    for (ServicePort p : ports) {
      if (p.getName() != null && !p.getName().isEmpty()) {
        out.put(portName + "_" + variableName(p.getName()), Integer.toString(p.getPort()));
      }
    }
    for (int i = 0; i < ports.size(); i++) {
      ServicePort p = ports.get(i);
      String protocol =
          p.getProtocol() == null || p.getProtocol().isEmpty() ? "TCP" : p.getProtocol();
      String lower = protocol.toLowerCase(Locale.ROOT);
      String url = lower + "://" + HostPort.join(ip, p.getPort());
      if (i == 0) {
        out.put(prefix + "_PORT", url);
      }
      String portPrefix = prefix + "_PORT_" + p.getPort() + "_" + protocol.toUpperCase(Locale.ROOT);
      out.put(portPrefix, url);
      out.put(portPrefix + "_PROTO", lower);
      out.put(portPrefix + "_PORT", Integer.toString(p.getPort()));
      out.put(portPrefix + "_ADDR", ip);
    }
    return out;
  }

  private static boolean hasClusterIp(Service s) {
    String ip = s.getSpec() == null ? null : s.getSpec().getClusterIP();
    return ip != null && !ip.isEmpty() && !"None".equals(ip);
  }

  private static String variableName(String s) {
    return s.replace('-', '_').toUpperCase(Locale.ROOT);
  }
}
