package io.jkubelet.agent.util;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;
import java.util.Map;

/**
 * A canonical JSON form of API objects (keys sorted at every level), and the hashes built on it:
 * the same object always hashes the same, in this run and the next.
 */
public final class Canonical {
  private static final ObjectMapper SORTED =
      new ObjectMapper()
          .configure(SerializationFeature.ORDER_MAP_ENTRIES_BY_KEYS, true)
          .configure(SerializationFeature.INDENT_OUTPUT, false);

  private Canonical() {}

  /** The object as JSON with every map's keys sorted. */
  public static String json(Object o) {
    try {
      Map<?, ?> tree = SORTED.readValue(ApiSerialization.SHARED.asJson(o), Map.class);
      return SORTED.writeValueAsString(tree);
    } catch (java.io.IOException e) {
      throw new IllegalStateException("cannot serialize " + o.getClass().getSimpleName(), e);
    }
  }

  /** 32-bit FNV-1a of the canonical JSON, as lowercase hex: the container spec hash label. */
  public static String fnv32a(Object o) {
    byte[] bytes = json(o).getBytes(StandardCharsets.UTF_8);
    int h = 0x811c9dc5;
    for (byte b : bytes) {
      h ^= (b & 0xff);
      h *= 0x01000193;
    }
    return Integer.toHexString(h);
  }

  /** MD5 over the given strings and the object's canonical JSON, as 32 hex digits. */
  public static String md5(Object o, String... prefixes) {
    try {
      MessageDigest md = MessageDigest.getInstance("MD5");
      for (String p : prefixes) {
        md.update(p.getBytes(StandardCharsets.UTF_8));
      }
      md.update(json(o).getBytes(StandardCharsets.UTF_8));
      return HexFormat.of().formatHex(md.digest());
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
