package io.jkubelet.agent.systemd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@link FakeSystemd} follows the contract, and writes a slice's files as systemd does. */
class FakeSystemdTest extends SystemdContract {
  @TempDir Path tmp;
  private FakeSystemd fake;

  @Override
  Systemd systemd() {
    if (fake == null) {
      fake = new FakeSystemd(tmp, 252);
    }
    return fake;
  }

  @Test
  void realizesASliceFromItsPropertiesAndResetsFilesOfSlicesWithoutUnits() throws Exception {
    systemd()
        .startTransientUnit(
            "a-b.slice",
            List.of(
                UnitProperty.u64("MemoryMax", 1024),
                UnitProperty.u64("CPUQuotaPerSecUSec", 200_000)));
    Path dir = tmp.resolve("a.slice/a-b.slice");
    assertThat(Files.readString(dir.resolve("memory.max")).strip()).isEqualTo("1024");
    assertThat(Files.readString(dir.resolve("cpu.max")).strip()).isEqualTo("20000 100000");
    Path unmanaged = Files.createDirectories(tmp.resolve("c.slice"));
    Files.writeString(unmanaged.resolve("memory.max"), "4096");

    fake.realizeAll();

    assertThat(Files.readString(dir.resolve("memory.max")).strip()).isEqualTo("1024");
    assertThat(Files.readString(unmanaged.resolve("memory.max")).strip()).isEqualTo("max");
  }

  @Test
  void recordsCallsFailsOnRequestAndRefusesCallsWhenClosed() {
    FakeSystemd other = new FakeSystemd();
    other.fail(new SystemdException(SystemdException.FAILED, "boom"));
    assertThatThrownBy(() -> other.stopUnit("x.slice")).hasMessage("boom");
    other.stopUnit("x.slice");
    assertThat(other.calls()).containsExactly("StopUnit x.slice", "StopUnit x.slice");
    other.close();
    assertThatThrownBy(other::version).isInstanceOf(SystemdException.class);
  }
}
