package io.jkubelet.config;

/** How the agent's clients speak to the API server: their rate limit and content type. */
public record ApiClientSettings(
    @Field(
            flag = "--kube-api-qps",
            value = "5",
            min = 0,
            doc =
                "Requests per second to the API server, shared by the clients of pods, pod"
                    + " status, mirror pods and the objects pods use (not events nor the node's"
                    + " heartbeat, as upstream); 0: client-go's 5")
        int kubeAPIQPS,
    @Field(
            value = "10",
            min = 0,
            zeroIsUnset = true,
            doc = "Requests at once beyond --kube-api-qps")
        int kubeAPIBurst,
    @Field(
            flag = "--kube-api-content-type",
            label = "TYPE",
            value = "application/vnd.kubernetes.protobuf",
            zeroIsUnset = true,
            doc =
                "The content type of requests to the API server. Accepted, but the clients speak"
                    + " JSON whatever it says (fabric8 reads no protobuf), which start-up logs")
        String contentType) {}
