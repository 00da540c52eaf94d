package io.jkubelet.config;

/**
 * The node agent's configuration: the subset of {@code kubelet.config.k8s.io/v1beta1}
 * KubeletConfiguration that jkubelet supports, plus jkubelet's own settings and the flags that have
 * no field (upstream's {@code KubeletFlags}). Component names, and those of the settings records'
 * components, are upstream's JSON field names, so they are also the names used in files and in
 * {@link ConfigException#field()}.
 *
 * <p>Each setting is declared once, by the {@link Field} on its component: its file name, flag,
 * default, checks and doc. {@link Settings} derives the rest from the declarations: the file's
 * reading ({@link ConfigLoader}), the flags, the defaults, validation ({@link ConfigValidator}) and
 * the help. Adding a setting is a component with its {@link Field}, and the code that uses it.
 *
 * <p>Instances are immutable. {@link Settings#build} makes them, and the settings records inside,
 * and rejects a null where a value is due and copies lists, once for every record; ranges are
 * checked by {@link ConfigValidator}, so a configuration can be assembled from a file and flags
 * first and validated once at the end.
 *
 * <p>The settings are grouped by their job, each group a record of its own, nested where a group
 * belongs to a larger one: {@link NodeSettings} (registration, identity and {@link
 * CertificateSettings}, {@link NodeStatusSettings}, {@link ShutdownSettings}, what the host must
 * give: {@link HostSettings}), {@link ApiClientSettings}, {@link EventSettings} (with {@link
 * EventExport}), {@link PodSettings} ({@link StaticPodSettings}, {@link DnsSettings}, {@link
 * ContainerLogSettings}, {@link NetworkSettings}, {@link PodLifecycleSettings}), {@link
 * ServerSettings} (the kubelet API), {@link RuntimeSettings} (the engine), {@link ImageSettings}
 * (image pulls) and {@link ResourceSettings} ({@link CgroupSettings}, {@link ReservationSettings},
 * {@link EvictionSettings}, {@link GcSettings}). The grouping is this code's alone: a file keeps
 * upstream's flat v1beta1 fields, each found by its declared name. A new subsystem adds a record to
 * the group it belongs to.
 */
public record KubeletConfiguration(
    NodeSettings node,
    ApiClientSettings client,
    EventSettings events,
    PodSettings pods,
    ServerSettings server,
    RuntimeSettings runtime,
    ImageSettings images,
    ResourceSettings resources) {

  /** The configuration with every setting at its default, as declared. */
  public static KubeletConfiguration defaults() {
    return Settings.defaults(KubeletConfiguration.class, false);
  }

  /**
   * A builder starting from the defaults of a configuration file, which differ from the flags'
   * where {@code kubelet.config.k8s.io/v1beta1} says so ({@link Field#fileValue()}): {@code
   * readOnlyPort} 0, no anonymous requests, the token webhook on and authorization mode Webhook.
   */
  public static KubeletConfigurationBuilder fileBuilder() {
    return KubeletConfigurationBuilder.defaults(true);
  }

  /** A builder starting from {@link #defaults()}. */
  public static KubeletConfigurationBuilder builder() {
    return KubeletConfigurationBuilder.defaults(false);
  }

  /**
   * A builder starting from this configuration, for overlaying command-line flags on values read
   * from a file: set only what the flags give, then {@link KubeletConfigurationBuilder#build()}.
   */
  public KubeletConfigurationBuilder toBuilder() {
    return KubeletConfigurationBuilder.of(this);
  }
}
