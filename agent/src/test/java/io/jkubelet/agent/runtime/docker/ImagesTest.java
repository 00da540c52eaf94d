package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.dockerjava.api.exception.InternalServerErrorException;
import io.jkubelet.agent.runtime.RegistryAuth;
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

  @Test
  void anAnonymousPullSendsAnEmptyCredentialAndAUserHisOwn() {
    var none = Images.authConfig(RegistryAuth.NONE);
    assertThat(none.getUsername()).isNull();
    assertThat(none.getPassword()).isNull();
    assertThat(none.getRegistryAddress()).isNull();
    var alice = Images.authConfig(RegistryAuth.basic("alice", "pw"));
    assertThat(alice.getUsername()).isEqualTo("alice");
    assertThat(alice.getPassword()).isEqualTo("pw");
    assertThat(RegistryAuth.basic("alice", "pw")).asString().doesNotContain("pw");
  }

  @Test
  void aRefusedPullReadsAsDockersClientSaysIt() {
    var refused =
        new InternalServerErrorException(
            "Status 500: {\"message\":\"Head \\\"https://r:5000/v2/a/manifests/1\\\": no basic auth"
                + " credentials\"}\n");
    assertThat(Images.pullFailure(refused))
        .isEqualTo(
            "Error response from daemon: Head \"https://r:5000/v2/a/manifests/1\": no basic auth"
                + " credentials");
  }
}
