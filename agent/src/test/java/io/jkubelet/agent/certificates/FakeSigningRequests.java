package io.jkubelet.agent.certificates;

import io.jkubelet.agent.util.FakeClock;
import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.function.Consumer;

/**
 * A hand-written {@link SigningRequests}: CSRs in a map, calls recorded, settable errors, and a
 * script of changes that {@link #awaitChange} applies one per wait (the approver or signer acting
 * while the node waits). A wait with nothing left to apply steps the fake clock by its whole {@code
 * max}, as a real wait would take. Thread-safe ({@code this}).
 */
final class FakeSigningRequests implements SigningRequests {
  /** The compile-time check that the fake is a {@link SigningRequests}. */
  static final Class<? extends SigningRequests> CHECK = FakeSigningRequests.class;

  private final FakeClock clock;
  private final Map<String, Csr> csrs = new HashMap<>();
  private final List<String> calls = new ArrayList<>();
  private final Deque<Consumer<FakeSigningRequests>> onWait = new ArrayDeque<>();
  private long version;
  private ApiException createError;
  private ApiException getError;
  private Consumer<Csr> onCreate = c -> {};
  private int closed;

  FakeSigningRequests(FakeClock clock) {
    this.clock = clock;
  }

  synchronized List<String> calls() {
    return List.copyOf(calls);
  }

  synchronized long creates() {
    return calls.stream().filter(c -> c.startsWith("create ")).count();
  }

  synchronized int closed() {
    return closed;
  }

  synchronized List<Csr> all() {
    return List.copyOf(csrs.values());
  }

  synchronized FakeSigningRequests failCreate(ApiException e) {
    createError = e;
    return this;
  }

  synchronized FakeSigningRequests failGet(ApiException e) {
    getError = e;
    return this;
  }

  /** Runs on each created CSR (e.g. an approver and signer that act at once). */
  synchronized FakeSigningRequests onCreate(Consumer<Csr> action) {
    onCreate = action;
    return this;
  }

  /** Queues a change that the next wait without a change applies. */
  synchronized FakeSigningRequests thenOnWait(Consumer<FakeSigningRequests> action) {
    onWait.add(action);
    return this;
  }

  synchronized void approve(String name) {
    addCondition(name, new Condition(Condition.APPROVED, "AutoApproved", "approved by test"));
  }

  synchronized void deny(String name, String reason, String message) {
    addCondition(name, new Condition(Condition.DENIED, reason, message));
  }

  synchronized void fail(String name, String reason, String message) {
    addCondition(name, new Condition(Condition.FAILED, reason, message));
  }

  synchronized void issue(String name, String certificatePem) {
    Csr c = csrs.get(name);
    put(
        new Csr(
            c.name(),
            c.uid(),
            "",
            c.requestPem(),
            c.signerName(),
            c.usages(),
            c.conditions(),
            certificatePem));
  }

  synchronized void delete(String name) {
    csrs.remove(name);
    version++;
  }

  private void addCondition(String name, Condition condition) {
    Csr c = csrs.get(name);
    List<Condition> conditions = new ArrayList<>(c.conditions());
    conditions.add(condition);
    put(
        new Csr(
            c.name(),
            c.uid(),
            "",
            c.requestPem(),
            c.signerName(),
            c.usages(),
            conditions,
            c.certificatePem()));
  }

  private void put(Csr c) {
    version++;
    csrs.put(
        c.name(),
        new Csr(
            c.name(),
            c.uid(),
            Long.toString(version),
            c.requestPem(),
            c.signerName(),
            c.usages(),
            c.conditions(),
            c.certificatePem()));
  }

  @Override
  public Csr create(String name, String requestPem, String signerName, List<String> usages) {
    Consumer<Csr> action;
    Csr created;
    synchronized (this) {
      calls.add("create " + name);
      if (createError != null) {
        throw createError;
      }
      if (csrs.containsKey(name)) {
        throw new ApiException(409, "certificatesigningrequests \"" + name + "\" already exists");
      }
      put(
          new Csr(
              name,
              UUID.randomUUID().toString(),
              "",
              requestPem,
              signerName,
              usages,
              List.of(),
              ""));
      created = csrs.get(name);
      action = onCreate;
    }
    action.accept(created);
    return created;
  }

  @Override
  public synchronized Optional<Csr> get(String name) {
    calls.add("get " + name);
    if (getError != null) {
      throw getError;
    }
    return Optional.ofNullable(csrs.get(name));
  }

  @Override
  public void awaitChange(String name, String resourceVersion, Duration max) {
    Consumer<FakeSigningRequests> action;
    synchronized (this) {
      calls.add("await " + name);
      Csr c = csrs.get(name);
      if (c == null || !c.resourceVersion().equals(resourceVersion)) {
        return;
      }
      action = onWait.poll();
    }
    if (action != null) {
      action.accept(this);
    } else {
      clock.step(max);
    }
  }

  @Override
  public synchronized void close() {
    closed++;
  }
}
