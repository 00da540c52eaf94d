package io.jkubelet.agent.network;

/** CNI spec versions ({@code major.minor.patch}) compared numerically; "" is 0.1.0, as libcni. */
final class SpecVersion {
  private SpecVersion() {}

  static boolean atLeast(String version, String than) {
    int[] a = parts(version);
    int[] b = parts(than);
    for (int i = 0; i < 3; i++) {
      if (a[i] != b[i]) {
        return a[i] > b[i];
      }
    }
    return true;
  }

  private static int[] parts(String v) {
    String s = v == null || v.isEmpty() ? "0.1.0" : v;
    String[] p = s.split("\\.");
    int[] out = new int[3];
    for (int i = 0; i < 3 && i < p.length; i++) {
      try {
        out[i] = Integer.parseInt(p[i]);
      } catch (NumberFormatException e) {
        out[i] = 0;
      }
    }
    return out;
  }
}
