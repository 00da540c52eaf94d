#!/usr/bin/env bash
# Kubelet API benchmark (issue 11), on a real node in cluster mode: a control plane
# (deploy/scripts/k8s-up.sh) and jkubelet joined as its own node, run as kubeadm configures a
# kubelet (the cluster's CA as client CA, the token webhook, authorization mode Webhook).
# KubeletApiBench, with kubectl as the admin through the API server, prints each figure beside the
# engine's own (docker CLI) where there is one:
#   - kubectl logs of a LOG_MB MB log: MB/s (goal >= 100 MB/s), beside docker logs, and curl as the
#     admin straight to jkubelet's port and to the API server's pods/log (after one warm-up read),
#     with the load average;
#   - kubectl logs -f: per line, from the time the container stamped on it until it is read from
#     the stream, p50 and p99 (goal: under 50 ms added to docker logs -f of the same lines);
#   - kubectl exec pod -- true beside docker exec <id> true, RUNS runs each interleaved, medians
#     and their ratio (goal <= 1.2x);
#   - GET /metrics with METRICS_PODS pods on the node, through the API server's node proxy and
#     directly to jkubelet's port with the admin's client certificate: median and p99 (goal
#     < 20 ms), and the series count.
#
# Usage: deploy/scripts/bench-kubelet-api.sh [RUNS] [METRICS_PODS] [LOG_MB] [SECTIONS]
#        (defaults: 20 110 100 logs,follow,exec,metrics)
# Environment: see deploy/scripts/bench-lib.sh (state dir, ports).
set -euo pipefail
RUNS=${1:-20}; METRICS_PODS=${2:-110}; LOG_MB=${3:-100}; SECTIONS=${4:-logs,follow,exec,metrics}
source "$(dirname "${BASH_SOURCE[0]}")/bench-lib.sh"
bench_build
bench_cluster_up bench-api --client-ca-file "$bench_pki/ca.crt" --authentication-token-webhook \
  --anonymous-auth=false --authorization-mode Webhook
bench_java KubeletApiBench "$kubeconfig" "$node" "$bench_kubectl" "$kubelet_port" "$RUNS" "$METRICS_PODS" "$LOG_MB" "$SECTIONS"
