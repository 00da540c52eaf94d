package io.jkubelet.agent.runtime.docker;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.github.dockerjava.api.model.Container;
import com.github.dockerjava.transport.DockerHttpClient;
import io.jkubelet.agent.runtime.ContainerState;
import io.jkubelet.agent.runtime.ContainerSummary;
import io.jkubelet.agent.runtime.Labels;
import io.jkubelet.agent.runtime.PodRef;
import io.jkubelet.agent.runtime.RuntimeError;
import io.jkubelet.agent.runtime.RuntimeError.Kind;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.ConnectException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * {@link ContainerList}'s streaming parser on an answer captured from a Docker Engine (API 1.41): a
 * running sandbox, an exited app container with a port and a mount, a created one, one whose pod
 * UID label is empty and one without pod labels, listed with {@code all=1}. Checked against fixed
 * expectations and against docker-java's binding of the same bytes; and the request and its
 * failures on a hand-made transport.
 */
class ContainerListTest {
  private static final ObjectMapper DOCKER_JAVA =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private static final PodRef POD = new PodRef("uid-1", "web", "ns1");

  private static byte[] captured() throws IOException {
    try (InputStream in =
        ContainerListTest.class.getResourceAsStream("/docker/containers-list.json")) {
      return in.readAllBytes();
    }
  }

  private static List<ContainerSummary> parse(String json) throws IOException {
    return ContainerList.parse(new ByteArrayInputStream(json.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void aCapturedAnswerGivesThePodsContainersOnly() throws IOException {
    List<ContainerSummary> summaries = ContainerList.parse(new ByteArrayInputStream(captured()));

    assertThat(summaries)
        .containsExactly(
            new ContainerSummary(
                "8179e622cc02b02eb0829a39df999b465e284a62fffc49e450303b11a9e21f92",
                POD,
                "side",
                false,
                ContainerState.CREATED,
                Instant.ofEpochSecond(1795447123),
                0),
            new ContainerSummary(
                "2264094bdf5b54b1cfd5ac4412365230a0a4d110ffc04ef904bcb96bfaa878e3",
                POD,
                "app",
                false,
                ContainerState.EXITED,
                Instant.ofEpochSecond(1795447122),
                2),
            new ContainerSummary(
                "81b05750bdbc57e8122a03d16406a29f3512cfa481b3d89df5f0c53eb3bfc839",
                POD,
                Labels.POD_CONTAINER_NAME,
                true,
                ContainerState.RUNNING,
                Instant.ofEpochSecond(1795447122),
                0));
  }

  @Test
  void aCapturedAnswerGivesWhatDockerJavasBindingGave() throws IOException {
    List<Container> bound = DOCKER_JAVA.readValue(captured(), new TypeReference<>() {});
    List<ContainerSummary> viaDockerJava =
        bound.stream().map(InspectMapping::summary).flatMap(Optional::stream).toList();

    assertThat(bound).hasSize(5);
    assertThat(ContainerList.parse(new ByteArrayInputStream(captured()))).isEqualTo(viaDockerJava);
  }

  @Test
  void fieldsOfOtherShapesOrPlacesAreSkippedAndMissingOnesDefault() throws IOException {
    String json =
        """
        [{"HostConfig": {"Labels": {"io.kubernetes.pod.uid": "not-this"}, "State": "running"},
          "Names": ["/x"], "Ports": [{"PrivatePort": 80, "Type": "tcp"}], "Mounts": null,
          "Labels": {"io.kubernetes.pod.uid": "uid-1", "io.kubernetes.pod.name": "web",
                     "io.kubernetes.pod.namespace": "ns1", "other": {"nested": [1, 2]},
                     "io.kubernetes.docker.type": "podsandbox"},
          "Id": "c1", "State": "paused", "Extra": {"Id": "not-this", "Created": 7}},
         {"Id": "c2", "Labels": {"io.kubernetes.pod.uid": "uid-2"}, "Created": 5, "State": "dead"},
         {"Id": "c3", "Labels": null, "State": "running"},
         42,
         {"Id": "c4", "Labels": {"io.kubernetes.pod.uid": "uid-4",
                                 "io.kubernetes.container.name": "app"}, "State": "Exited"}]
        """;

    assertThat(parse(json))
        .containsExactly(
            new ContainerSummary(
                "c1",
                POD,
                Labels.POD_CONTAINER_NAME,
                true,
                ContainerState.UNKNOWN,
                Instant.EPOCH,
                0),
            new ContainerSummary(
                "c2",
                new PodRef("uid-2", "", ""),
                "",
                false,
                ContainerState.EXITED,
                Instant.ofEpochSecond(5),
                0),
            new ContainerSummary(
                "c4",
                new PodRef("uid-4", "", ""),
                "app",
                false,
                ContainerState.EXITED,
                Instant.EPOCH,
                0));
  }

  @Test
  void anEmptyListIsEmptyAndABrokenOneFails() throws IOException {
    assertThat(parse("[]\n")).isEmpty();
    assertThatThrownBy(() -> parse("{\"message\": \"no\"}"))
        .isInstanceOf(JsonProcessingException.class);
    assertThatThrownBy(() -> parse("[{\"Id\": \"c1\", \"Labels\": {"))
        .isInstanceOf(JsonProcessingException.class);
    assertThatThrownBy(() -> parse("")).isInstanceOf(JsonProcessingException.class);
  }

  @Test
  void theRequestIsDockerJavasListingWithTheLabelFilters() {
    AtomicReference<DockerHttpClient.Request> sent = new AtomicReference<>();
    ContainerList list =
        new ContainerList(
            transport(
                request -> {
                  sent.set(request);
                  return response(200, "[]");
                }));

    assertThat(list.list(new Scope(Map.of("io.jkubelet.node", "n 1")).filter(Labels.POD_UID, null)))
        .isEmpty();

    assertThat(sent.get().method()).isEqualTo("GET");
    String path = sent.get().path();
    assertThat(path).startsWith("/containers/json?all=1&filters=");
    assertThat(
            URLDecoder.decode(path.substring(path.indexOf("filters=") + 8), StandardCharsets.UTF_8))
        .isEqualTo("{\"label\":[\"io.kubernetes.pod.uid\",\"io.jkubelet.node=n 1\"]}");
  }

  @Test
  void engineErrorsAndFailuresMapAsDockerJavasDo() {
    assertThatThrownBy(() -> listAnswering(response(500, "{\"message\":\"daemon is sick\"}")))
        .isInstanceOfSatisfying(
            RuntimeError.class,
            e -> {
              assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
              assertThat(e.getMessage()).isEqualTo("daemon is sick");
            });
    assertThatThrownBy(() -> listAnswering(response(400, "{\"message\":\"invalid filter\"}")))
        .isInstanceOfSatisfying(
            RuntimeError.class,
            e -> {
              assertThat(e.kind()).isEqualTo(Kind.OTHER);
              assertThat(e.getMessage()).isEqualTo("invalid filter");
            });
    assertThatThrownBy(() -> listAnswering(response(200, "[{\"Id\": ")))
        .isInstanceOfSatisfying(
            RuntimeError.class,
            e -> {
              assertThat(e.kind()).isEqualTo(Kind.OTHER);
              assertThat(e.getMessage()).startsWith("docker: the container list is not valid JSON");
            });
    ContainerList down =
        new ContainerList(
            transport(
                request -> {
                  throw new RuntimeException(new ConnectException("Connection refused"));
                }));
    assertThatThrownBy(() -> down.list(List.of(Labels.POD_UID)))
        .isInstanceOfSatisfying(
            RuntimeError.class,
            e -> {
              assertThat(e.kind()).isEqualTo(Kind.UNAVAILABLE);
              assertThat(e.getMessage()).contains("did not answer").contains("Connection refused");
            });
  }

  private static List<ContainerSummary> listAnswering(DockerHttpClient.Response answer) {
    return new ContainerList(transport(request -> answer)).list(List.of(Labels.POD_UID));
  }

  private static DockerHttpClient transport(
      Function<DockerHttpClient.Request, DockerHttpClient.Response> answer) {
    return new DockerHttpClient() {
      @Override
      public Response execute(Request request) {
        return answer.apply(request);
      }

      @Override
      public void close() {}
    };
  }

  private static DockerHttpClient.Response response(int status, String body) {
    return new DockerHttpClient.Response() {
      @Override
      public int getStatusCode() {
        return status;
      }

      @Override
      public Map<String, List<String>> getHeaders() {
        return Map.of();
      }

      @Override
      public InputStream getBody() {
        return new ByteArrayInputStream(body.getBytes(StandardCharsets.UTF_8));
      }

      @Override
      public void close() {}
    };
  }
}
