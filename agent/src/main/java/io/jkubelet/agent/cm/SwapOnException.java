package io.jkubelet.agent.cm;

/**
 * The host has swap on and {@code failSwapOn} is true: the agent does not start. Its message is
 * upstream's, and {@code cli} exits with upstream's code for it, 255 ({@code klog.Fatal}), so that
 * a unit that restarts the kubelet restarts this as it restarts upstream's.
 */
public final class SwapOnException extends RuntimeException {
  private static final long serialVersionUID = 1L;

  SwapOnException(String message) {
    super(message);
  }
}
