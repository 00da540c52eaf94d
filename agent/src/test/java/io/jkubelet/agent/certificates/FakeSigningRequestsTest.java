package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.FakeClock;

/** The fake held to the {@link SigningRequestsContract}. */
class FakeSigningRequestsTest extends SigningRequestsContract {
  private final FakeSigningRequests fake = new FakeSigningRequests(new FakeClock());

  @Override
  protected SigningRequests api() {
    return fake;
  }

  @Override
  protected void approve(String name) {
    fake.approve(name);
  }

  @Override
  protected void deny(String name, String reason, String message) {
    fake.deny(name, reason, message);
  }

  @Override
  protected void issue(String name, String certificatePem) {
    fake.issue(name, certificatePem);
  }
}
