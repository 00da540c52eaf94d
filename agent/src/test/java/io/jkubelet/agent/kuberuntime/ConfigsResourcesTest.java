package io.jkubelet.agent.kuberuntime;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.jkubelet.agent.runtime.ContainerConfig.Resources;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** CPU shares and CFS quota as upstream's generateLinuxContainerConfig derives them. */
class ConfigsResourcesTest {

  @ParameterizedTest(name = "request {0}, limit {1} -> shares {2}, quota {3}")
  @CsvSource({
    ",,2,0", // best effort: the minimum shares, no quota
    "100m,,102,0",
    "250m,500m,256,50000",
    ",500m,512,50000", // only a limit: the request defaults to it
    "1,2,1024,200000",
    "1m,1m,2,1000", // shares and quota floors (2 shares, 1 ms quota)
    "0.5,1500m,512,150000",
    "10m,5m,10,1000"
  })
  void cpu(String request, String limit, long shares, long quota) {
    Resources r = Configs.resources(container(request, limit, null));
    assertThat(r.cpuShares()).isEqualTo(shares);
    assertThat(r.cpuQuotaMicros()).isEqualTo(quota);
    assertThat(r.cpuPeriodMicros()).isEqualTo(100_000);
    assertThat(r.memoryLimitBytes()).isZero();
  }

  @ParameterizedTest(name = "memory limit {0} -> {1} bytes")
  @CsvSource({"64Mi,67108864", "1G,1000000000", "128974848,128974848"})
  void memoryLimitAsItIs(String limit, long bytes) {
    assertThat(Configs.resources(container(null, null, limit)).memoryLimitBytes()).isEqualTo(bytes);
  }

  private static Container container(String cpuRequest, String cpuLimit, String memoryLimit) {
    Map<String, Quantity> requests = new HashMap<>();
    Map<String, Quantity> limits = new HashMap<>();
    if (cpuRequest != null) {
      requests.put("cpu", new Quantity(cpuRequest));
    }
    if (cpuLimit != null) {
      limits.put("cpu", new Quantity(cpuLimit));
    }
    if (memoryLimit != null) {
      limits.put("memory", new Quantity(memoryLimit));
    }
    return new ContainerBuilder()
        .withName("c")
        .withImage("busybox")
        .withNewResources()
        .withRequests(requests)
        .withLimits(limits)
        .endResources()
        .build();
  }
}
