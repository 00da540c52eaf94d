#!/usr/bin/env python3
"""The scale benchmark's runs and table (issue 42): N hollow nodes of one kind against the
control plane, then N of the other, one table. Called by bench-scale.sh, which builds and starts
what it needs; see there for the environment.

Per kind: the nodes start and go Ready; the API server's request counters
(apiserver_request_total) are read before and after an idle window, less the same window with no
hollow node (the control plane's own traffic), and divided by N and the minutes; the watches held
open (apiserver_registered_watchers) likewise; the hollow nodes' memory (RSS) and threads, the
JVM's total over N for jkubelet, the processes' sum over N for kubemark; the API server's and etcd's
CPU seconds over the idle window (less the baseline's) and RSS at its end; the bytes the API server
received and sent on its port (each connection's TCP counters, from ss), less the baseline's. With
CHURN=1, a Deployment of 10 x N pods is created, scaled to 0 and back, twice: pod start from
creation to Running as a watch of the API sees them (p50, p99), from binding to Running (the
kubelet's share of it), the requests per node (all the API server's, and the nodes' own from its
audit log of them, STATE/audit-nodes.log) and the hollow nodes' own CPU seconds during the
churn. N may be a list ("10 50 100"): one baseline, then each N in turn, one table each."""
import codecs, json, os, re, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_audit  # noqa: E402

KUBECTL = os.environ["BENCH_KUBECTL"]
KUBECONFIG = os.environ["BENCH_KUBECONFIG"]
STATE = os.environ["BENCH_STATE"]
SCRIPTS = os.path.dirname(os.path.abspath(__file__))
NS_LIST = [int(n) for n in os.environ.get("N", "10").split()]
N = NS_LIST[0]
IDLE = int(os.environ.get("IDLE", "600"))
SETTLE = int(os.environ.get("SETTLE", "120"))
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


def api_port():
    with open(KUBECONFIG) as f:
        return int(re.search(r"server: \"?https?://[^:\s]+:(\d+)", f.read()).group(1))


def process(name):
    """(CPU seconds, RSS MiB) of the control plane's process NAME (its pid file under STATE)."""
    pid = int(open(os.path.join(STATE, name + ".pid")).read().strip())
    rss = int(re.search(r"VmRSS:\s+(\d+)", open("/proc/%d/status" % pid).read()).group(1)) / 1024
    return cpu_of(pid), rss


def cpu_of(pid):
    """CPU seconds of the process."""
    stat = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")


def hollow_cpu(procs):
    """CPU seconds of the hollow nodes' processes (the JVM, or each kubemark), so far."""
    total = 0.0
    for p in procs:
        try:
            total += cpu_of(pid_of_java(p))
        except (FileNotFoundError, ProcessLookupError):
            pass
    return total


def sockets():
    """{(local, peer): (bytes received, bytes acked)} of the API server's side of its connections."""
    out = subprocess.run(["ss", "-tinH", "state", "established", "( sport = :%d )" % api_port()],
                         capture_output=True, text=True).stdout.splitlines()
    conns, key = {}, None
    for line in out:
        if not line.startswith((" ", "\t")):
            f = line.split()
            key = (f[-2], f[-1]) if len(f) >= 2 else None
        elif key:
            rx = re.search(r"bytes_received:(\d+)", line)
            tx = re.search(r"bytes_acked:(\d+)", line)
            conns[key] = (int(rx.group(1)) if rx else 0, int(tx.group(1)) if tx else 0)
    return conns


def bytes_between(a, b):
    """Bytes in and out between two socket readings: a connection's growth, or all of a new one's."""
    rx = tx = 0
    for k, (r, t) in b.items():
        r0, t0 = a.get(k, (0, 0))
        rx, tx = rx + r - r0, tx + t - t0
    return rx, tx


def idle_window(seconds):
    a, sa = scrape(), sockets()
    cpu_a = {n: process(n)[0] for n in ("apiserver", "etcd")}
    time.sleep(seconds)
    b, sb = scrape(), sockets()
    procs = {n: process(n) for n in ("apiserver", "etcd")}
    return {"requests": diff(a, b), "watch": {k: v for k, v in b.items() if k[0] == "watchers"},
            "cpu": {n: procs[n][0] - cpu_a[n] for n in procs}, "rss": {n: procs[n][1] for n in procs},
            "bytes": bytes_between(sa, sb), "load": os.getloadavg()}


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
            # kubemark's fake runtime listens on the fixed /tmp/kubelet_remote.sock
            # (pkg/kubelet/cri/remote/fake/endpoint.go): as in a pod of its own, each process gets
            # a /tmp of its own, in a mount namespace; else they take over each other's socket.
            # The state dir (its kubeconfigs and certificates) stays where it was under /tmp.
            keep = os.path.relpath(STATE, "/tmp") if STATE.startswith("/tmp/") else ""
            procs.append(subprocess.Popen(
                ["unshare", "--mount", "--propagation", "private", "sh", "-c",
                 'if [ -n "$1" ]; then mkdir -p "$0/$1" && mount --bind "/tmp/$1" "$0/$1" || exit 1; fi;'
                 ' mount --rbind "$0" /tmp && shift && exec "$@"', tmp, keep,
                 "nice", "-n", "5", KUBEMARK, "--morph=kubelet", "--name=" + name]
                + (["--kube-api-content-type=application/json"] if kind == "kubemark-json" else []) + [
                 "--kubeconfig=" + os.path.join(STATE, "nodes", name + ".kubeconfig"),
                 "--kubelet-port=%d" % (31000 + i), "--kubelet-read-only-port=0", "--v=0"],
                stdout=logf, stderr=subprocess.STDOUT))
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


def churn(prefix, procs):
    """Pod start from creation to Running as a watch of the API sees it; requests during churn."""
    seen, bound, running, lock = {}, {}, {}, threading.Lock()
    w = subprocess.Popen([KUBECTL, "--kubeconfig", KUBECONFIG, "-n", NS, "get", "pods", "-w",
                          "-o", "json", "--output-watch-events"], stdout=subprocess.PIPE)

    def read():
        # The watch prints one JSON object after another; read what is there, decode every whole
        # object in it, and keep the rest for the next read.
        decoder, text, buf = json.JSONDecoder(), codecs.getincrementaldecoder("utf-8")(), ""
        while True:
            chunk = os.read(w.stdout.fileno(), 1 << 16)
            if not chunk:
                return
            now = time.time()
            buf += text.decode(chunk)  # a character may straddle two reads
            while True:
                buf = buf.lstrip()
                try:
                    ev, end = decoder.raw_decode(buf)
                except ValueError:
                    break
                buf = buf[end:]
                pod = ev.get("object", {})
                uid = pod.get("metadata", {}).get("uid")
                if not uid:
                    continue
                with lock:
                    seen.setdefault(uid, now)
                    if pod.get("spec", {}).get("nodeName"):
                        bound.setdefault(uid, now)
                    if pod.get("status", {}).get("phase") == "Running":
                        running.setdefault(uid, now)
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
    a, cpu0, hollow0 = scrape(), process("apiserver")[0], hollow_cpu(procs)
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
    own = nodes_own_requests(t0, time.time(), prefix)
    cpu = process("apiserver")[0] - cpu0
    hollow = hollow_cpu(procs) - hollow0
    w.terminate()
    with lock:
        starts = sorted(running[u] - seen[u] for u in running if u in seen)
        kubelet = sorted(running[u] - bound[u] for u in running if u in bound)
    return ok, starts, kubelet, d, own, minutes, len(seen), cpu, hollow


def nodes_own_requests(start, end, prefix):
    """The requests the nodes named prefix* made from start to end, by verb and resource:
    {("requests", VERB, "resource[/subresource]"): count}; None without an audit log."""
    got = bench_audit.node_requests(STATE, start, end, "system:node:" + prefix)
    return None if got is None else {("requests",) + k: v for k, v in got.items()}


def pct(xs, p):
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


def main():
    global N
    if any(k.startswith("kubemark") for k in KINDS) and os.geteuid() != 0:
        sys.exit("bench-scale: kubemark's hollow nodes each need a /tmp of their own (a mount namespace): run as root")
    kubectl("create", "namespace", NS, check=False)
    # The control plane's first minutes are its own start (and the garbage of earlier runs).
    log("settling %d s, then a baseline of %d s with no hollow node" % (SETTLE, IDLE))
    time.sleep(SETTLE)
    base = idle_window(IDLE)
    for N in NS_LIST:
        table(run(base), base)


def run(base):
    results = {}
    minutes = IDLE / 60
    for kind in KINDS:
        prefix = {"jkubelet": "jk", "kubemark": "km", "kubemark-json": "kmj"}[kind] + "-hollow-%d-" % N
        log("%s: starting %d hollow nodes" % (kind, N))
        procs = start(kind, prefix)
        t = time.time()
        while ready_nodes(prefix) < N and time.time() - t < 600:
            time.sleep(2)
        ready_after = time.time() - t
        log("%s: %d of %d Ready after %.0f s; idle %d s" % (kind, ready_nodes(prefix), N, ready_after, IDLE))
        time.sleep(30)
        w = idle_window(IDLE)
        r = {"ready": ready_nodes(prefix), "ready_s": ready_after, "window": w,
             "idle": {k: (v - base["requests"].get(k, 0)) / N / minutes for k, v in w["requests"].items()},
             "watches": (sum(w["watch"].values()) - sum(base["watch"].values())) / N,
             "cpu": {n: (w["cpu"][n] - base["cpu"][n]) / N / minutes for n in w["cpu"]},
             "bytes": [(w["bytes"][i] - base["bytes"][i]) / N / minutes for i in (0, 1)]}
        r["rss_mib"], r["threads"] = footprint(procs)
        if CHURN:
            log("%s: churn of %d pods" % (kind, 10 * N))
            ok, starts, kubelet, d, own, churn_minutes, pods, cpu, hollow = churn(prefix, procs)
            r["churn"] = {"ok": ok, "p50": pct(starts, 50), "p99": pct(starts, 99), "pods": pods,
                          "bound_p50": pct(kubelet, 50), "bound_p99": pct(kubelet, 99),
                          "minutes": churn_minutes, "apiserver_cpu": cpu, "hollow_cpu": hollow,
                          "per_node_min": sum(d.values()) / N / churn_minutes,
                          "per_node": sum(d.values()) / N,
                          "by_kind": {k: v / N for k, v in d.items()},
                          "own": None if own is None else {k: v / N for k, v in own.items()},
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
    return results


def table(results, base):
    kinds = list(results)
    print("\n## Scale: %d hollow nodes per kind, idle %d s, churn %s (%s)\n" %
          (N, IDLE, "10 x N pods" if CHURN else "not run", time.strftime("%Y-%m-%d")))
    print("Load average (1, 5, 15 min) at the end of each idle window: baseline %s; %s\n" % (
        "/".join("%.1f" % x for x in base["load"]),
        "; ".join("%s %s" % (k, "/".join("%.1f" % x for x in results[k]["window"]["load"])) for k in kinds)))
    ratio = "jkubelet" in kinds and "kubemark" in kinds
    print("| row | " + " | ".join(kinds) + (" | jkubelet / kubemark" if ratio else "") + " |")
    print("|---|" + "---|" * (len(kinds) + ratio))

    def row(name, f):
        cells = [f(results[k]) for k in kinds]
        if ratio:
            try:
                a, b = (float(cells[kinds.index(k)].split()[0]) for k in ("jkubelet", "kubemark"))
                cells.append("%.2f" % (a / b) if b > 0 and a >= 0 else "")
            except ValueError:
                cells.append("")
        print("| %s | %s |" % (name, " | ".join(cells)))
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
    row("KiB per node per minute into the API server, idle", lambda r: "%.1f" % (r["bytes"][0] / 1024))
    row("KiB per node per minute out of the API server, idle", lambda r: "%.1f" % (r["bytes"][1] / 1024))
    row("API server CPU ms per node per minute, idle", lambda r: "%.1f" % (r["cpu"]["apiserver"] * 1000))
    row("etcd CPU ms per node per minute, idle", lambda r: "%.1f" % (r["cpu"]["etcd"] * 1000))
    row("API server RSS at the idle window's end (MiB; baseline %.0f)" % base["rss"]["apiserver"],
        lambda r: "%.0f" % r["window"]["rss"]["apiserver"])
    row("etcd RSS at the idle window's end (MiB; baseline %.0f)" % base["rss"]["etcd"],
        lambda r: "%.0f" % r["window"]["rss"]["etcd"])
    row("RSS per hollow node (MiB)", lambda r: "%.1f" % (r["rss_mib"] / N))
    row("threads per hollow node", lambda r: "%.1f" % (r["threads"] / N))
    if CHURN:
        row("churn: every pod Running", lambda r: str(r["churn"]["ok"]))
        row("churn: pod start p50 (s)", lambda r: "%.2f" % r["churn"]["p50"])
        row("churn: pod start p99 (s)", lambda r: "%.2f" % r["churn"]["p99"])
        row("churn: from binding to Running, p50 (s)", lambda r: "%.2f" % r["churn"]["bound_p50"])
        row("churn: from binding to Running, p99 (s)", lambda r: "%.2f" % r["churn"]["bound_p99"])
        if all(results[k]["churn"]["own"] is not None for k in kinds):
            # What the nodes asked themselves (the audit log's lines of system:node:<name>).
            row("churn: the nodes' own API requests per node per minute",
                lambda r: "%.1f" % (sum(r["churn"]["own"].values()) / r["churn"]["minutes"]))
            row("churn: the nodes' own API requests per node, in all",
                lambda r: "%.0f" % sum(r["churn"]["own"].values()))
            own_keys = sorted({k for r in results.values() for k, v in r["churn"]["own"].items() if v >= 1},
                              key=lambda k: -max(results[x]["churn"]["own"].get(k, 0) for x in kinds))
            for k in own_keys:
                row("&nbsp;&nbsp;%s %s" % (k[1], k[2]), lambda r, k=k: "%.1f" % r["churn"]["own"].get(k, 0))
        # Every client's: the controllers' and the scheduler's work for the pods is in it too.
        row("churn: API server requests per node per minute, every client's",
            lambda r: "%.1f" % r["churn"]["per_node_min"])
        row("churn: API server requests per node, in all, every client's",
            lambda r: "%.0f" % r["churn"]["per_node"])
        # By verb and resource, those of at least 1 per node in either kind.
        churn_keys = sorted({k for r in results.values() for k, v in r["churn"]["by_kind"].items() if v >= 1},
                            key=lambda k: -max(results[x]["churn"]["by_kind"].get(k, 0) for x in kinds))
        for k in churn_keys:
            row("&nbsp;&nbsp;%s %s" % (k[1], k[2]), lambda r, k=k: "%.1f" % r["churn"]["by_kind"].get(k, 0))
        row("churn: length (min)", lambda r: "%.1f" % r["churn"]["minutes"])
        row("churn: API server CPU s per pod started", lambda r: "%.3f" % (r["churn"]["apiserver_cpu"] / max(r["churn"]["pods"], 1)))
        row("churn: hollow nodes' CPU s per pod started", lambda r: "%.3f" % (r["churn"]["hollow_cpu"] / max(r["churn"]["pods"], 1)))
        row("churn: pod status writes per pod", lambda r: "%.2f" % r["churn"]["status_writes_per_pod"])
        row("nodes Ready after churn", lambda r: "%d / %d" % (r["ready_after_churn"], N))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
