package io.jkubelet.agent.runtime;

/**
 * One message of the engine's pull progress stream, as Docker's {@code JSONMessage}: a layer's id
 * (or the tag, for the messages about the whole image), its status ({@code Downloading}, {@code
 * Extracting}, {@code Pull complete}, ...) and, for a transfer, its bytes so far and in all.
 *
 * @param id the layer's short id, or "" for none
 * @param status what the engine says it does
 * @param current the bytes done, or 0 when the message has no progress
 * @param total the bytes in all, or 0 when unknown
 */
public record PullProgress(String id, String status, long current, long total) {
  public PullProgress {
    id = id == null ? "" : id;
    status = status == null ? "" : status;
  }
}
