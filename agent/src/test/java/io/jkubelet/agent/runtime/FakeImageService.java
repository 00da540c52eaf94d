package io.jkubelet.agent.runtime;

/**
 * The tests' name for {@link io.jkubelet.agent.runtime.fake.FakeImageService}, which moved to the
 * main code for hollow nodes; {@code FakeImageServiceContractTest} holds it to Docker's behaviour.
 */
public final class FakeImageService extends io.jkubelet.agent.runtime.fake.FakeImageService {}
