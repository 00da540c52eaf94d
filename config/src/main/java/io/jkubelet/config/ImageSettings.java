package io.jkubelet.config;

import java.time.Duration;

/**
 * How images are pulled: upstream's dockershim flag {@code --image-pull-progress-deadline}, which
 * has no field in the file. Checked by {@link ConfigValidator}.
 */
public record ImageSettings(
    @Field(
            file = Field.FLAG_ONLY,
            value = "1m",
            check = Checks.NotNegative.class,
            doc =
                "A pull whose engine reports no progress for this long is cancelled, with a"
                    + " Warning on each waiting pod, and retried under the image backoff; 0s: never")
        Duration imagePullProgressDeadline) {

  public static final ImageSettings DEFAULTS = Settings.defaults(ImageSettings.class, false);
}
