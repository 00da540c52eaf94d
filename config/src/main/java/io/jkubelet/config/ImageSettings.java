package io.jkubelet.config;

import java.time.Duration;

/**
 * How images are pulled: upstream's dockershim flag {@code --image-pull-progress-deadline}, which
 * has no field in the file, and jkubelet's own switch for the pull progress told to pods. Checked
 * by {@link ConfigValidator}.
 */
public record ImageSettings(
    @Field(
            file = Field.FLAG_ONLY,
            value = "1m",
            check = Checks.NotNegative.class,
            doc =
                "A pull whose engine reports no progress for this long is cancelled, with a"
                    + " Warning on each waiting pod, and retried under the image backoff; 0s: never")
        Duration imagePullProgressDeadline,
    @Field(
            value = "true",
            doc =
                "jkubelet's own: while a pull runs, update each waiting pod's Pulling event with"
                    + " its progress every 10s; false: the event stays as upstream's (the"
                    + " progress deadline, /pods and the kubelet_image_pull_* metrics still work)")
        boolean imagePullProgress) {

  public static final ImageSettings DEFAULTS = Settings.defaults(ImageSettings.class, false);
}
