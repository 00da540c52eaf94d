package io.jkubelet.agent.systemd;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * What every {@link Systemd} does, run against {@link FakeSystemd} and, on a machine whose PID 1 is
 * systemd, against the real one ({@link DbusSystemdTest}): the behaviour the systemd cgroup driver
 * relies on to make, adopt and remove its slices.
 */
abstract class SystemdContract {
  /** A slice no one else uses, with a name of its own per test class. */
  static final String SLICE = "jkubelet_contract-test.slice";

  abstract Systemd systemd();

  @AfterEach
  void stopSlices() {
    systemd().stopUnit(SLICE);
    systemd().stopUnit("jkubelet_contract.slice");
  }

  private static List<UnitProperty> limits(long memory) {
    return List.of(
        UnitProperty.str("Description", "jkubelet contract test"),
        UnitProperty.strs("Wants", List.of("jkubelet_contract.slice")),
        UnitProperty.bool("DefaultDependencies", false),
        UnitProperty.bool("MemoryAccounting", true),
        UnitProperty.u64("MemoryMax", memory),
        UnitProperty.u64("TasksMax", UnitProperty.INFINITY));
  }

  @Test
  void aTransientSliceStartsOnceAndIsThenLoaded() {
    systemd().startTransientUnit(SLICE, limits(64L << 20));
    assertThatThrownBy(() -> systemd().startTransientUnit(SLICE, limits(32L << 20)))
        .isInstanceOfSatisfying(
            SystemdException.class,
            e -> assertThat(e.errorName()).isEqualTo(SystemdException.UNIT_EXISTS));
    systemd().setUnitProperties(SLICE, List.of(UnitProperty.u64("MemoryMax", 32L << 20)));
  }

  @Test
  void propertiesCannotBeSetOnAUnitThatIsNotLoaded() {
    assertThatThrownBy(
            () ->
                systemd()
                    .setUnitProperties(
                        "jkubelet_contract-never.slice",
                        List.of(UnitProperty.u64("MemoryMax", 1L << 30))))
        .isInstanceOfSatisfying(
            SystemdException.class,
            e -> assertThat(e.errorName()).isEqualTo(SystemdException.NO_SUCH_UNIT));
  }

  @Test
  void aStoppedTransientSliceIsGoneAndCanStartAgain() {
    systemd().startTransientUnit(SLICE, limits(64L << 20));
    systemd().stopUnit(SLICE);
    systemd().stopUnit(SLICE);
    systemd().startTransientUnit(SLICE, limits(64L << 20));
  }

  @Test
  void itsVersionIsANumber() {
    assertThat(systemd().version()).isGreaterThan(200);
  }
}
