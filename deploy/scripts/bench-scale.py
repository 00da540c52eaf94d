#!/usr/bin/env python3
"""The scale benchmark's runs and table (issue 42): N hollow nodes of one kind against the
control plane, then N of the other, one table. Called by bench-scale.sh, which builds and starts
what it needs; see there for the environment.

Per kind: the nodes start and go Ready; the API server's request counters
(apiserver_request_total) are read before and after an idle window, less the same window with no
hollow node (the control plane's own traffic), and divided by N and the minutes; the watches held
open (apiserver_registered_watchers) likewise; the hollow nodes' memory (RSS) and threads, the
JVM's total over N for jkubelet, the processes' sum over N for kubemark. With CHURN=1, a Deployment
of 10 x N pods is created, scaled to 0 and back, twice: pod start from creation to Running as a
watch of the API sees them (p50, p99), and the requests per node during the churn."""
import json, os, re, subprocess, sys, threading, time

KUBECTL = os.environ["BENCH_KUBECTL"]
KUBECONFIG = os.environ["BENCH_KUBECONFIG"]
STATE = os.environ["BENCH_STATE"]
SCRIPTS = os.path.dirname(os.path.abspath(__file__))
N = int(os.environ.get("N", "10"))
IDLE = int(os.environ.get("IDLE", "600"))
CHURN = os.environ.get("CHURN", "1") == "1"
KINDS = os.environ.get("KINDS", "jkubelet kubemark").split()
JKUBELET = os.environ["BENCH_JKUBELET"]
KUBEMARK = os.environ.get("BENCH_KUBEMARK", "")
WORK = os.environ["BENCH_WORK"]
NS = "bench-scale"


def kubectl(*args, check=True):
    r = subprocess.run([KUBECTL, "--kubeconfig", KUBECONFIG, *args], capture_output=True, text=True)
    if check and r.returncode != 0:
        raise RuntimeError("kubectl %s: %s" % (" ".join(args), r.stderr))
    return r.stdout


def log(*a):
    print("bench-scale:", *a, file=sys.stderr, flush=True)


LINE = re.compile(r'^(apiserver_request_total|apiserver_registered_watchers)\{([^}]*)\} (\S+)$')


def scrape():
    """{("requests", verb, resource): count, ("watchers", kind): n}"""
    out = {}
    for line in kubectl("get", "--raw", "/metrics").splitlines():
        m = LINE.match(line)
        if not m:
            continue
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        if m.group(1) == "apiserver_request_total":
            res = labels.get("resource", "") + ("/" + labels["subresource"] if labels.get("subresource") else "")
            key = ("requests", labels.get("verb", ""), res)
        else:
            key = ("watchers", labels.get("kind", ""))
        out[key] = out.get(key, 0) + float(m.group(3))
    return out


def diff(a, b):
    return {k: b.get(k, 0) - a.get(k, 0) for k in set(a) | set(b) if k[0] == "requests"}


def idle_window(seconds):
    a = scrape()
    time.sleep(seconds)
    b = scrape()
    return diff(a, b), {k: v for k, v in b.items() if k[0] == "watchers"}


def node_kubeconfig(name):
    return subprocess.run([os.path.join(SCRIPTS, "k8s-node-kubeconfig.sh"), STATE, name],
                          capture_output=True, text=True, check=True).stdout.strip()


def ready_nodes(prefix):
    out = kubectl("get", "nodes", "-o", "json")
    n = 0
    for item in json.loads(out)["items"]:
        if item["metadata"]["name"].startswith(prefix):
            for c in item["status"].get("conditions", []):
                if c["type"] == "Ready" and c["status"] == "True":
                    n += 1
    return n


def start(kind, prefix):
    names = [prefix + str(i) for i in range(N)]
    for name in names:
        node_kubeconfig(name)
    procs = []
    logf = open(os.path.join(WORK, kind + ".log"), "w")
    if kind == "jkubelet":
        procs.append(subprocess.Popen(
            ["nice", "-n", "5", JKUBELET, "hollow", "--nodes", str(N), "--node-name-prefix", prefix,
             "--kubeconfig", os.path.join(STATE, "nodes", "{node}.kubeconfig"),
             "--root-dir", os.path.join(WORK, "jk-root")],
            stdout=logf, stderr=subprocess.STDOUT))
    else:
        for i, name in enumerate(names):
            tmp = os.path.join(WORK, "km", name)
            os.makedirs(tmp, exist_ok=True)
            procs.append(subprocess.Popen(
                ["nice", "-n", "5", KUBEMARK, "--morph=kubelet", "--name=" + name,
                 "--kubeconfig=" + os.path.join(STATE, "nodes", name + ".kubeconfig"),
                 "--kubelet-port=%d" % (31000 + i), "--kubelet-read-only-port=0", "--v=0"],
                stdout=logf, stderr=subprocess.STDOUT, env=dict(os.environ, TMPDIR=tmp)))
    return procs


def pid_of_java(p):
    """The JVM under the launcher and nice: the deepest descendant."""
    pid = p.pid
    while True:
        kids = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
        if not kids:
            return pid
        pid = int(kids[0])


def footprint(procs):
    rss = threads = 0
    for p in procs:
        pid = pid_of_java(p)
        try:
            status = open("/proc/%d/status" % pid).read()
        except FileNotFoundError:
            continue
        rss += int(re.search(r"VmRSS:\s+(\d+)", status).group(1))
        threads += int(re.search(r"Threads:\s+(\d+)", status).group(1))
    return rss / 1024, threads


def churn(prefix):
    """Pod start from creation to Running as a watch of the API sees it; requests during churn."""
    seen, running, lock = {}, {}, threading.Lock()
    w = subprocess.Popen([KUBECTL, "--kubeconfig", KUBECONFIG, "-n", NS, "get", "pods", "-w",
                          "-o", "json", "--output-watch-events"], stdout=subprocess.PIPE, text=True)

    def read():
        buf = ""
        depth = 0
        for ch in iter(lambda: w.stdout.read(1), ""):
            buf += ch
            depth += ch == "{"
            depth -= ch == "}"
            if depth == 0 and buf.strip():
                now = time.time()
                try:
                    ev = json.loads(buf)
                except ValueError:
                    buf = ""
                    continue
                buf = ""
                pod = ev.get("object", {})
                uid = pod.get("metadata", {}).get("uid")
                with lock:
                    if uid and uid not in seen:
                        seen[uid] = now
                    if uid and pod.get("status", {}).get("phase") == "Running" and uid not in running:
                        running[uid] = now
    threading.Thread(target=read, daemon=True).start()
    replicas = 10 * N
    manifest = json.dumps({
        "apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": "churn"},
        "spec": {"replicas": replicas, "selector": {"matchLabels": {"app": "churn"}},
                 "template": {"metadata": {"labels": {"app": "churn"}}, "spec": {
                     "automountServiceAccountToken": False, "terminationGracePeriodSeconds": 1,
                     "affinity": {"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {
                         "nodeSelectorTerms": [{"matchExpressions": [{
                             "key": "kubernetes.io/hostname", "operator": "In",
                             "values": [prefix + str(i) for i in range(N)]}]}]}}},
                     "containers": [{"name": "c", "image": "k8s.gcr.io/pause:3.2"}]}}}})
    a = scrape()
    t0 = time.time()
    subprocess.run([KUBECTL, "--kubeconfig", KUBECONFIG, "-n", NS, "apply", "-f", "-"],
                   input=manifest, text=True, check=True, capture_output=True)

    def wait(count, deadline=600):
        end = time.time() + deadline
        while time.time() < end:
            pods = json.loads(kubectl("-n", NS, "get", "pods", "-o", "json"))["items"]
            if count == 0 and not pods:
                return True
            if count and sum(p["status"].get("phase") == "Running" for p in pods) >= count:
                return True
            time.sleep(2)
        return False
    ok = wait(replicas)
    for _ in range(2):
        kubectl("-n", NS, "scale", "deployment", "churn", "--replicas=0")
        ok = wait(0) and ok
        kubectl("-n", NS, "scale", "deployment", "churn", "--replicas=%d" % replicas)
        ok = wait(replicas) and ok
    kubectl("-n", NS, "delete", "deployment", "churn")
    wait(0)
    minutes = (time.time() - t0) / 60
    d = diff(a, scrape())
    w.terminate()
    with lock:
        starts = sorted(running[u] - seen[u] for u in running if u in seen)
    return ok, starts, d, minutes, len(seen)


def pct(xs, p):
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main():
    kubectl("create", "namespace", NS, check=False)
    log("baseline: %d s with no hollow node" % IDLE)
    base, base_watch = idle_window(IDLE)
    results = {}
    for kind in KINDS:
        prefix = ("jk" if kind == "jkubelet" else "km") + "-hollow-%d-" % N
        log("%s: starting %d hollow nodes" % (kind, N))
        procs = start(kind, prefix)
        t = time.time()
        while ready_nodes(prefix) < N and time.time() - t < 600:
            time.sleep(2)
        ready_after = time.time() - t
        log("%s: %d of %d Ready after %.0f s; idle %d s" % (kind, ready_nodes(prefix), N, ready_after, IDLE))
        time.sleep(30)
        reqs, watch = idle_window(IDLE)
        r = {"ready": ready_nodes(prefix), "ready_s": ready_after,
             "idle": {k: (v - base.get(k, 0)) / N / (IDLE / 60) for k, v in reqs.items()},
             "watches": (sum(watch.values()) - sum(base_watch.values())) / N}
        r["rss_mib"], r["threads"] = footprint(procs)
        if CHURN:
            log("%s: churn of %d pods" % (kind, 10 * N))
            ok, starts, d, minutes, pods = churn(prefix)
            r["churn"] = {"ok": ok, "p50": pct(starts, 50), "p99": pct(starts, 99), "pods": pods,
                          "per_node_min": sum(d.values()) / N / minutes,
                          "status_writes_per_pod": d.get(("requests", "PATCH", "pods/status"), 0) / max(pods, 1)}
            r["ready_after_churn"] = ready_nodes(prefix)
        results[kind] = r
        for p in procs:
            p.terminate()
        for p in procs:
            try:
                p.wait(60)
            except subprocess.TimeoutExpired:
                p.kill()
        nodes = [prefix + str(i) for i in range(N)]
        kubectl("delete", "node", *nodes, "--wait=false", check=False)
    table(results)


def table(results):
    kinds = list(results)
    print("\n## Scale: %d hollow nodes per kind, idle %d s, churn %s (%s)\n" %
          (N, IDLE, "10 x N pods" if CHURN else "not run", time.strftime("%Y-%m-%d")))
    print("| row | " + " | ".join(kinds) + " |")
    print("|---|" + "---|" * len(kinds))

    def row(name, f):
        print("| %s | %s |" % (name, " | ".join(f(results[k]) for k in kinds)))
    row("nodes Ready / N", lambda r: "%d / %d (%.0f s)" % (r["ready"], N, r["ready_s"]))
    row("API requests per node per minute, idle", lambda r: "%.1f" % sum(v for v in r["idle"].values()))
    # Rows of at least 0.2 per node per minute; the rest (the control plane's own watches coming
    # and going, within the baseline's noise) in one.
    keys = sorted({k for r in results.values() for k, v in r["idle"].items() if abs(v) >= 0.2},
                  key=lambda k: -max(results[x]["idle"].get(k, 0) for x in kinds))
    for k in keys:
        row("&nbsp;&nbsp;%s %s" % (k[1], k[2]), lambda r, k=k: "%.2f" % r["idle"].get(k, 0))
    row("&nbsp;&nbsp;everything else", lambda r: "%.2f" % sum(
        v for k, v in r["idle"].items() if k not in keys))
    row("watches held open per node", lambda r: "%.1f" % r["watches"])
    row("RSS per hollow node (MiB)", lambda r: "%.1f" % (r["rss_mib"] / N))
    row("threads per hollow node", lambda r: "%.1f" % (r["threads"] / N))
    if CHURN:
        row("churn: every pod Running", lambda r: str(r["churn"]["ok"]))
        row("churn: pod start p50 (s)", lambda r: "%.2f" % r["churn"]["p50"])
        row("churn: pod start p99 (s)", lambda r: "%.2f" % r["churn"]["p99"])
        row("churn: API requests per node per minute", lambda r: "%.1f" % r["churn"]["per_node_min"])
        row("churn: pod status writes per pod", lambda r: "%.2f" % r["churn"]["status_writes_per_pod"])
        row("nodes Ready after churn", lambda r: "%d / %d" % (r["ready_after_churn"], N))


if __name__ == "__main__":
    main()
