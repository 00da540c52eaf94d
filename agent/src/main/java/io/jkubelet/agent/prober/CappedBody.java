package io.jkubelet.agent.prober;

import java.io.ByteArrayOutputStream;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Flow;

/**
 * A response body read up to a cap, as upstream's probes read one ({@code ReadAtMost}): the body
 * completes with the first {@code cap} bytes as soon as it has them, and the rest is never read, so
 * that a huge or endless body neither fills memory nor holds the attempt.
 *
 * <p>Thread-safe as the HTTP client uses a subscriber: its calls are serialized.
 */
final class CappedBody implements HttpResponse.BodySubscriber<String> {
  private final int cap;
  private final ByteArrayOutputStream bytes = new ByteArrayOutputStream();
  private final CompletableFuture<String> body = new CompletableFuture<>();
  private Flow.Subscription subscription;

  private CappedBody(int cap) {
    this.cap = cap;
  }

  /** A handler that reads at most {@code cap} bytes of each body. */
  static HttpResponse.BodyHandler<String> handler(int cap) {
    return info -> new CappedBody(cap);
  }

  @Override
  public void onSubscribe(Flow.Subscription s) {
    subscription = s;
    s.request(1);
  }

  @Override
  public void onNext(List<ByteBuffer> items) {
    for (ByteBuffer b : items) {
      int n = Math.min(b.remaining(), cap - bytes.size());
      byte[] chunk = new byte[n]; // the client's buffers may be read-only: no array() to share
      b.get(chunk);
      bytes.writeBytes(chunk);
      if (bytes.size() >= cap) {
        subscription.cancel(); // enough: the rest of the body is not wanted
        complete();
        return;
      }
    }
    subscription.request(1);
  }

  @Override
  public void onError(Throwable t) {
    body.completeExceptionally(t);
  }

  @Override
  public void onComplete() {
    complete();
  }

  private void complete() {
    body.complete(bytes.toString(StandardCharsets.UTF_8));
  }

  @Override
  public CompletionStage<String> getBody() {
    return body;
  }
}
