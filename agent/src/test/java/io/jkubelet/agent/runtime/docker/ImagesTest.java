package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The engine-independent part of {@link Images}. */
class ImagesTest {

  @Test
  void imageReferencesSplitIntoRepositoryAndTag() {
    assertThat(Images.repositoryAndTag("busybox")).containsExactly("busybox", "latest");
    assertThat(Images.repositoryAndTag("jkubelet/busybox:1.35"))
        .containsExactly("jkubelet/busybox", "1.35");
    assertThat(Images.repositoryAndTag("registry:5000/team/app"))
        .containsExactly("registry:5000/team/app", "latest");
    assertThat(Images.repositoryAndTag("registry:5000/team/app:v2"))
        .containsExactly("registry:5000/team/app", "v2");
    assertThat(Images.repositoryAndTag("app@sha256:abcd")).containsExactly("app", "sha256:abcd");
  }
}
