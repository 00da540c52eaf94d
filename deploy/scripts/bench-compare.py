#!/usr/bin/env python3
"""The measurements of bench-compare.sh, against one agent at a time, and its table.

  bench-compare.py measure CONFIG_JSON   runs the rows of CONFIG's ROWS against the agent that
                                         CONFIG names, and appends one JSON line per row to
                                         CONFIG's results file
  bench-compare.py table RESULTS         prints the table of both agents from a results file

bench-compare.sh starts the control plane and writes CONFIG; this script starts and stops the
agent itself (its command line is in CONFIG), because the footprint and failure rows restart it.
Everything goes to the API server as the admin (client certificate), and to the kubelet's port
with the same certificate; times are from time.monotonic().
"""
import http.client
import json
import os
import random
import signal
import socket
import ssl
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench_audit  # noqa: E402

IMAGE = "jkubelet/busybox:1.35"

# id, label, unit, which is better ("lower" or "higher")
ROWS = [
    ("podstart.one", "pod start: one pod, create to Running (watch)", "s", "lower"),
    ("podstart.burst.p50", "pod start: BURST pods at once, p50", "s", "lower"),
    ("podstart.burst.p99", "pod start: BURST pods at once, p99", "s", "lower"),
    ("podstart.full", "pod start: token + configMap + secret", "s", "lower"),
    ("delete", "pod deletion, grace 3 s, until gone", "s", "lower"),
    ("logs.kubectl", "kubectl logs, LOG_MB MB", "MB/s", "higher"),
    ("logs.api", "curl pods/log (API server), LOG_MB MB", "MB/s", "higher"),
    ("logs.follow", "kubectl logs -f, per line, p50", "ms", "lower"),
    ("exec", "kubectl exec pod -- true", "ms", "lower"),
    ("exec.cpu", "agent CPU per kubectl exec, above idle", "ms", "lower"),
    ("portforward", "kubectl port-forward, to first byte", "ms", "lower"),
    ("cp", "kubectl cp, CP_MB MB", "s", "lower"),
    ("cp.cpu", "agent CPU per kubectl cp, above idle", "ms", "lower"),
    ("cp.rss", "RSS after each kubectl cp", "MiB", "lower"),
    ("scrape.metrics", "GET /metrics at PODS pods", "ms", "lower"),
    ("scrape.cadvisor", "GET /metrics/cadvisor at PODS pods", "ms", "lower"),
    ("scrape.summary", "GET /stats/summary at PODS pods", "ms", "lower"),
    ("footprint.rss", "RSS at PODS pods", "MiB", "lower"),
    ("footprint.cpu", "idle CPU at PODS pods (% of a core)", "%", "lower"),
    ("footprint.threads", "threads at PODS pods", "", "lower"),
    ("footprint.startup", "start-up until PODS pods adopted", "s", "lower"),
    ("api.idle", "node's API requests/min, idle at PODS pods", "/min", "lower"),
    ("api.churn", "node's API requests/min, BURST pods churned", "/min", "lower"),
    ("fail.docker", "docker restart until all pods Running", "s", "lower"),
    ("fail.apiserver", "API server down APISERVER_DOWN s, to converged", "s", "lower"),
]
# ROWS= names groups of rows
GROUPS = {
    "podstart": ["podstart.one", "podstart.burst.p50", "podstart.burst.p99", "podstart.full"],
    "delete": ["delete"],
    "logs": ["logs.kubectl", "logs.api", "logs.follow"],
    "streams": ["exec", "exec.cpu", "portforward", "cp", "cp.cpu", "cp.rss"],
    "scrapes": ["scrape.metrics", "scrape.cadvisor", "scrape.summary"],
    "footprint": ["footprint.rss", "footprint.cpu", "footprint.threads", "footprint.startup"],
    "api": ["api.idle", "api.churn"],
    "failures": ["fail.docker", "fail.apiserver"],
}


def say(msg):
    print(f"bench-compare: {msg}", file=sys.stderr, flush=True)


def load1():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def median(xs):
    return statistics.median(xs) if xs else None


def percentile(xs, q):
    """Nearest rank."""
    xs = sorted(xs)
    if not xs:
        return None
    k = max(0, min(len(xs) - 1, -(-len(xs) * q // 100) - 1))
    return xs[int(k)]


class Api:
    """The API server and the kubelet's port, as the admin."""

    def __init__(self, c):
        self.server = c["server"].rstrip("/")
        self.kubelet_addr = c["kubelet_addr"]
        pki = c["pki"]
        self.ctx = ssl.create_default_context(cafile=f"{pki}/ca.crt")
        self.ctx.load_cert_chain(f"{pki}/admin.crt", f"{pki}/admin.key")
        self.kctx = ssl._create_unverified_context()
        self.kctx.load_cert_chain(f"{pki}/admin.crt", f"{pki}/admin.key")

    def call(self, method, path, body=None, timeout=30, ok=(200, 201, 202)):
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.server + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        try:
            with urllib.request.urlopen(req, context=self.ctx, timeout=timeout) as r:
                return json.load(r)
        except urllib.error.HTTPError as e:
            if e.code in ok:
                return json.load(e)
            raise RuntimeError(f"{method} {path}: {e.code} {e.read()[:300]!r}") from None

    def get(self, path, **kw):
        return self.call("GET", path, **kw)

    def kubelet_parts(self, port, path):
        """A GET on the kubelet's port in parts (ms): the TCP connect and TLS handshake, the GET on
        that connection, and a second GET on it (the connection kept alive)."""
        conn = http.client.HTTPSConnection(self.kubelet_addr, port, context=self.kctx, timeout=60)
        try:
            t0 = time.monotonic()
            conn.connect()
            t1 = time.monotonic()
            times = []
            for _ in range(2):
                conn.request("GET", path)
                conn.getresponse().read()
                times.append(time.monotonic())
            return (t1 - t0) * 1000, (times[0] - t1) * 1000, (times[1] - times[0]) * 1000
        finally:
            conn.close()

    def kubelet(self, port, path, timeout=60):
        """GET on the kubelet's port: (status, bytes)."""
        try:
            with urllib.request.urlopen(f"https://{self.kubelet_addr}:{port}{path}", context=self.kctx, timeout=timeout) as r:
                return r.status, r.read()
        except urllib.error.HTTPError as e:
            return e.code, e.read()


def kubectl_steps(log, path, start, end):
    """A kubectl run in three steps (ms), from its log at -v=7 and the wall clock around it: from
    its start until it sends the POST to path (its own start-up and the GET of the pod), that POST
    until the 101 (the API server's connection to the kubelet and the upgrade there), and the 101
    until end (what follows on the upgraded connection, and for exec the command itself)."""
    post = upgraded = None
    for line in log.splitlines():
        if post is None and "POST " in line and path in line:
            post = log_time(line, start)
        elif post is not None and upgraded is None and "101 Switching Protocols in" in line:
            upgraded = log_time(line, start)
    if post is None or upgraded is None:
        raise RuntimeError(f"kubectl's log shows no POST {path} and its 101: {log[-300:]!r}")
    return (post - start) * 1000, (upgraded - post) * 1000, (end - upgraded) * 1000


def log_time(line, near):
    """The time of a klog line ("I1201 00:15:06.335700 ..."), local time, as epoch seconds: the
    date is the one of near (an epoch time within half a day of it)."""
    clock = line.split()[1]
    h, m, sec = clock.split(":")
    day = time.localtime(near)
    t = time.mktime((day.tm_year, day.tm_mon, day.tm_mday, int(h), int(m), 0, 0, 0, -1)) + float(sec)
    return t - 86400 if t - near > 43200 else t + 86400 if near - t > 43200 else t


def steps_note(steps, what):
    """The medians of kubectl_steps' three steps, as a row's note."""
    a, b, c = (statistics.median(s[i] for s in steps) for i in range(3))
    return (f"medians of {len(steps)} more runs at -v=7: kubectl until its POST {a:.1f} ms, the upgrade "
            f"(the 101) {b:.1f} ms, from it until {what} {c:.1f} ms")


def containers_running(p):
    st = p.get("status") or {}
    cs = st.get("containerStatuses") or []
    specs = (p.get("spec") or {}).get("containers") or []
    return (st.get("phase") == "Running" and len(cs) == len(specs) and cs
            and all("running" in (c.get("state") or {}) for c in cs))


class Watch:
    """A watch on a namespace's pods: when each pod name was first seen with every container
    running, and when it was deleted (monotonic times)."""

    def __init__(self, api, ns):
        self.api, self.ns = api, ns
        self.running, self.deleted = {}, {}
        self.cond = threading.Condition()
        self.stopped = False
        lst = api.get(f"/api/v1/namespaces/{ns}/pods")
        self.rv = lst["metadata"]["resourceVersion"]
        self.thread = threading.Thread(target=self.loop, daemon=True)
        self.thread.start()

    def loop(self):
        while not self.stopped:
            url = f"{self.api.server}/api/v1/namespaces/{self.ns}/pods?watch=1&allowWatchBookmarks=true&resourceVersion={self.rv}"
            try:
                with urllib.request.urlopen(url, context=self.api.ctx, timeout=3600) as r:
                    for line in r:
                        now = time.monotonic()
                        ev = json.loads(line)
                        obj = ev["object"]
                        if ev["type"] == "ERROR":  # too old a resourceVersion: list again
                            self.rv = self.api.get(f"/api/v1/namespaces/{self.ns}/pods")["metadata"]["resourceVersion"]
                            break
                        self.rv = obj["metadata"].get("resourceVersion", self.rv)
                        if ev["type"] == "BOOKMARK":
                            continue
                        name = obj["metadata"]["name"]
                        with self.cond:
                            if ev["type"] == "DELETED":
                                self.deleted.setdefault(name, now)
                            elif containers_running(obj):
                                self.running.setdefault(name, now)
                            self.cond.notify_all()
            except Exception:
                if self.stopped:
                    return
                time.sleep(0.2)

    def wait(self, table, names, timeout=600):
        deadline = time.monotonic() + timeout
        with self.cond:
            while not all(n in table for n in names):
                left = deadline - time.monotonic()
                if left <= 0:
                    missing = [n for n in names if n not in table]
                    raise RuntimeError(f"timed out waiting for {len(missing)} pods, e.g. {missing[:3]}")
                self.cond.wait(min(left, 1))
            return {n: table[n] for n in names}

    def stop(self):
        self.stopped = True


def pod(node, name, command, **extra):
    spec = {
        "nodeName": node,
        "terminationGracePeriodSeconds": 1,
        "automountServiceAccountToken": False,
        "containers": [{"name": "c", "image": IMAGE, "imagePullPolicy": "Never", "command": command}],
    }
    spec.update(extra)
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name, "labels": {"bench-compare": "1"}}, "spec": spec}


SLEEPER = ["sh", "-c", "trap 'exit 0' TERM; sleep 3600 & wait"]
WEB = ["sh", "-c", "mkdir -p /www && echo ok > /www/index.html && exec httpd -f -p 8080 -h /www"]


class Bench:
    def __init__(self, c):
        self.c = c
        self.kind, self.node, self.ns = c["kind"], c["node"], c["namespace"]
        self.user = "system:node:" + self.node  # the node's own user, as the audit log names it
        self.port = c["kubelet_port"]
        self.runs = int(c["runs"])
        self.api = Api(c)
        self.kubectl = [c["kubectl"], "--kubeconfig", c["kubeconfig"], "-n", self.ns]
        self.agent = None
        self.t_start = None
        self.rows = c["rows"]
        self.many_up = False

    # ---- the agent ----

    def start_agent(self):
        # Just after a whole second, so that a heartbeat stamped in this second or later is the new
        # process's (the API's times have whole seconds).
        time.sleep(1.05 - time.time() % 1)
        self.t_start = time.time()
        self.t_start_mono = time.monotonic()
        log = open(self.c["agent_log"], "ab")
        self.agent = subprocess.Popen(self.c["argv"], stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        with open(self.c["pid_file"], "w") as f:
            f.write(str(self.agent.pid))

    def stop_agent(self):
        if not self.agent:
            return
        self.agent.terminate()
        try:
            self.agent.wait(30)
        except subprocess.TimeoutExpired:
            self.agent.kill()
            self.agent.wait()
        self.agent = None

    def alive(self):
        if self.agent is None or self.agent.poll() is not None:
            raise RuntimeError(f"{self.kind} exited; see {self.c['agent_log']}")

    def node_ready_since(self, floor):
        n = self.api.get(f"/api/v1/nodes/{self.node}")
        for cond in (n.get("status") or {}).get("conditions") or []:
            if cond["type"] == "Ready" and cond["status"] == "True":
                hb = time.mktime(time.strptime(cond["lastHeartbeatTime"], "%Y-%m-%dT%H:%M:%SZ")) - time.timezone
                return hb >= floor
        return False

    def lease_renewed_since(self, floor):
        lease = self.api.get(f"/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/{self.node}")
        renew = lease["spec"]["renewTime"]  # 2006-01-02T15:04:05.000000Z
        t = time.mktime(time.strptime(renew.split(".")[0].rstrip("Z"), "%Y-%m-%dT%H:%M:%S")) - time.timezone
        return t + float("0." + renew.split(".")[1].rstrip("Z")) >= floor if "." in renew else t >= floor

    def until(self, what, check, timeout=600, period=0.05):
        deadline = time.monotonic() + timeout
        while True:
            self.alive()
            try:
                if check():
                    return time.monotonic()
            except Exception:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"{self.kind}: {what} not within {timeout} s")
            time.sleep(period)

    # ---- helpers ----

    def create(self, body):
        return self.api.call("POST", f"/api/v1/namespaces/{self.ns}/pods", body)

    def delete(self, name, grace=0):
        try:
            self.api.call("DELETE", f"/api/v1/namespaces/{self.ns}/pods/{name}", {"gracePeriodSeconds": grace})
        except RuntimeError as e:
            if "404" not in str(e):
                raise

    def pods(self, selector="bench-compare"):
        return self.api.get(f"/api/v1/namespaces/{self.ns}/pods?labelSelector={selector}")["items"]

    def gone(self, names, timeout=300):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            left = {p["metadata"]["name"] for p in self.pods()} & set(names)
            if not left:
                return
            time.sleep(0.5)
        raise RuntimeError(f"pods {sorted(left)[:3]} not gone within {timeout} s")

    def up(self, name, body, timeout=300):
        self.create(body)
        self.until(f"pod {name} running", lambda: containers_running(self.api.get(f"/api/v1/namespaces/{self.ns}/pods/{name}")), timeout, 0.2)

    def run_kubectl(self, *args, stdin=None, timeout=600):
        r = subprocess.run(self.kubectl + list(args), capture_output=True, timeout=timeout, input=stdin)
        if r.returncode != 0:
            raise RuntimeError(f"kubectl {' '.join(args)}: {r.returncode} {r.stderr[-300:]!r}")
        return r.stdout

    def record(self, row, values, loads, note=""):
        with open(self.c["results"], "a") as f:
            f.write(json.dumps({"kind": self.kind, "row": row, "values": values, "loads": loads, "note": note}) + "\n")
        shown = ", ".join("-" if v is None else f"{v:.3g}" for v in values)
        say(f"{self.kind} {row}: {shown} (load {', '.join(f'{l:.1f}' for l in loads)}){' ' + note if note else ''}")

    def want(self, *rows):
        return any(r in self.rows for r in rows)

    # ---- rows ----

    def podstart(self, w):
        if self.want("podstart.one"):
            vals, loads = [], []
            for i in range(self.runs):
                loads.append(load1())
                name = f"one-{i}"
                t0 = time.monotonic()
                self.create(pod(self.node, name, SLEEPER))
                vals.append(w.wait(w.running, [name])[name] - t0)
                self.delete(name)
                self.gone([name])
            self.record("podstart.one", vals, loads)
        if self.want("podstart.burst.p50", "podstart.burst.p99", "api.churn"):
            p50, p99, loads, churn = [], [], [], []
            n = int(self.c["burst"])
            for i in range(self.runs):
                loads.append(load1())
                names = [f"burst-{i}-{j}" for j in range(n)]
                wall0 = time.time()
                t0 = time.monotonic()
                threads = [threading.Thread(target=self.create, args=(pod(self.node, m, SLEEPER),)) for m in names]
                for t in threads:
                    t.start()
                for t in threads:
                    t.join()
                got = w.wait(w.running, names)
                times = [got[m] - t0 for m in names]
                p50.append(percentile(times, 50))
                p99.append(percentile(times, 99))
                for m in names:
                    self.delete(m)
                self.gone(names)
                churn.append((wall0, time.time()))
            if self.want("podstart.burst.p50", "podstart.burst.p99"):
                self.record("podstart.burst.p50", p50, loads)
                self.record("podstart.burst.p99", p99, loads)
            if self.want("api.churn"):
                self.requests_row("api.churn", churn, loads, f"{n} pods created at once, Running, deleted, gone",
                                  pods=n * len(churn))
        if self.want("podstart.full"):
            self.api.call("POST", f"/api/v1/namespaces/{self.ns}/configmaps",
                          {"metadata": {"name": "cm"}, "data": {"k": "v"}})
            self.api.call("POST", f"/api/v1/namespaces/{self.ns}/secrets",
                          {"metadata": {"name": "sec"}, "stringData": {"k": "v"}})
            # v1.20 mounts the service account's token secret: it must exist before the pod.
            self.until("the default service account's token", lambda: self.api.get(
                f"/api/v1/namespaces/{self.ns}/serviceaccounts/default").get("secrets"), 60, 0.2)
            vals, loads = [], []
            for i in range(self.runs):
                loads.append(load1())
                name = f"full-{i}"
                body = pod(self.node, name, SLEEPER, automountServiceAccountToken=True, volumes=[
                    {"name": "cm", "configMap": {"name": "cm"}}, {"name": "sec", "secret": {"secretName": "sec"}}])
                body["spec"]["containers"][0]["volumeMounts"] = [
                    {"name": "cm", "mountPath": "/cm"}, {"name": "sec", "mountPath": "/sec"}]
                t0 = time.monotonic()
                self.create(body)
                vals.append(w.wait(w.running, [name])[name] - t0)
                got = self.run_kubectl("exec", name, "--", "cat", "/cm/k", "/sec/k",
                                       "/var/run/secrets/kubernetes.io/serviceaccount/namespace")
                if got.decode() != "vv" + self.ns:
                    raise RuntimeError(f"the full pod's volumes hold {got!r}")
                self.delete(name)
                self.gone([name])
            self.record("podstart.full", vals, loads)

    def deletion(self, w):
        vals, loads = [], []
        for i in range(self.runs):
            name = f"del-{i}"
            self.create(pod(self.node, name, SLEEPER))
            w.wait(w.running, [name])
            time.sleep(1)
            loads.append(load1())
            t0 = time.monotonic()
            self.delete(name, grace=3)
            vals.append(w.wait(w.deleted, [name])[name] - t0)
        self.record("delete", vals, loads)

    def timed_bytes(self, cmd, want):
        t0 = time.monotonic()
        err = open(self.c["agent_log"] + ".stderr", "w+")
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err)
        n, head = 0, b""
        while True:
            b = p.stdout.read(1 << 16)
            if not b:
                break
            n += len(b)
            head = head or b[:300]
        rc = p.wait()
        s = time.monotonic() - t0
        err.seek(0)
        if rc != 0 or n != want:
            raise RuntimeError(f"{cmd[:1] + cmd[-3:]} exited {rc} after {n} of {want} bytes: {err.read()[-300:]} {head!r}")
        return s

    def logs(self):
        mb = int(self.c["log_mb"])
        want = mb * 1_000_000
        if self.want("logs.kubectl", "logs.api"):
            line = ("0123456789" * 10)[:99]
            body = pod(self.node, "biglog", ["sh", "-c", f"yes {line} | head -c {want}"], restartPolicy="Never")
            self.create(body)
            self.until("the log writer to finish", lambda: self.api.get(
                f"/api/v1/namespaces/{self.ns}/pods/biglog")["status"].get("phase") == "Succeeded", 900, 1)
            pki = self.c["pki"]
            curl = ["curl", "-sSf", "--cacert", f"{pki}/ca.crt", "--cert", f"{pki}/admin.crt", "--key", f"{pki}/admin.key",
                    "-o", "-", f"{self.api.server}/api/v1/namespaces/{self.ns}/pods/biglog/log"]
            kubectl = self.kubectl + ["logs", "biglog"]
            self.timed_bytes(kubectl, want)  # warm-up: a long-running agent's code is compiled
            k, a, loads = [], [], []
            for _ in range(self.runs):
                loads.append(load1())
                k.append(mb / self.timed_bytes(kubectl, want))
                a.append(mb / self.timed_bytes(curl, want))
            self.record("logs.kubectl", k, loads)
            self.record("logs.api", a, loads)
            self.delete("biglog")
        if self.want("logs.follow"):
            # Each line is the time of day in microseconds, read from the kernel (one clock with the
            # host's) just before the write. With STA_NANO (0x2000) in the clock's status the
            # kernel's "tv_usec" holds nanoseconds.
            stamp = ("while :; do adjtimex | awk '/status/ {n = int($2 / 8192) % 2} /tv_sec/ {s = $2}"
                     " /tv_usec/ {printf \"%d%06d\\n\", s, n ? int($2 / 1000) : $2}'; sleep 0.1; done")
            self.up("ticker", pod(self.node, "ticker", ["sh", "-c", stamp]))
            lines = int(self.c["follow_lines"])
            vals, loads = [], []
            for i in range(self.runs + 1):
                if i:
                    loads.append(load1())
                p = subprocess.Popen(self.kubectl + ["logs", "-f", "--tail=1", "ticker"], stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
                p.stdout.readline()
                lat = []
                while len(lat) < lines:
                    l = p.stdout.readline()
                    if not l:
                        raise RuntimeError("kubectl logs -f ended")
                    ms = (time.time_ns() // 1000 - int(l.strip())) / 1000
                    if not -1000 < ms < 60000:
                        raise RuntimeError(f"logs.follow: the line {l.strip()!r} is not the time of day in microseconds")
                    lat.append(ms)
                p.kill()
                p.wait()
                if i:  # the first is a warm-up
                    vals.append(percentile(lat, 50))
            self.record("logs.follow", vals, loads)
            self.delete("ticker")

    def quiet(self, group):
        """Waits until the machine's 1-minute load is at most QUIET_LOAD, for QUIET_WAIT s at most:
        the agent measured before this one leaves the API server and the engine busy with its pods'
        deletion for a minute or two, and the group measured first would inherit that load."""
        limit, wait = self.c.get("quiet_load", 1.0), self.c.get("quiet_wait", 300)
        t0 = time.monotonic()
        while load1() > limit and time.monotonic() - t0 < wait:
            time.sleep(5)
        took, now = time.monotonic() - t0, load1()
        if took >= 5 or now > limit:
            say(f"{self.kind} {group}: waited {took:.0f} s for a quiet machine (load {now:.1f}, limit {limit})")

    def streams(self):
        self.up("web", pod(self.node, "web", WEB))
        if self.want("exec"):
            self.run_kubectl("exec", "web", "--", "true")
            vals, loads, steps = [], [], []
            for _ in range(self.runs):
                loads.append(load1())
                t0 = time.monotonic()
                self.run_kubectl("exec", "web", "--", "true")
                vals.append((time.monotonic() - t0) * 1000)
            for _ in range(self.runs):
                steps.append(self.exec_steps())
            self.record("exec", vals, loads, steps_note(steps, "the process's end and kubectl's exit"))
        if self.want("exec.cpu"):
            self.run_kubectl("exec", "web", "--", "true")
            loads = [load1()]
            cpu = self.cpu_per_run(lambda: self.run_kubectl("exec", "web", "--", "true"), 4 * self.runs)
            self.record("exec.cpu", [cpu], loads, f"{4 * self.runs} runs in a row")
        if self.want("portforward"):
            vals, loads, steps = [], [], []
            for i in range(self.runs + 1):
                if i:
                    loads.append(load1())
                vals.append(self.port_forward())
            for _ in range(self.runs):
                steps.append(self.port_forward(steps=True))
            self.record("portforward", vals[1:], loads, steps_note(steps, "the first byte"))
        src = self.c["cp_file"]
        if self.want("cp", "cp.rss"):
            size = os.path.getsize(src)
            vals, loads, rss = [], [], []
            for i in range(self.runs):
                loads.append(load1())
                t0 = time.monotonic()
                self.run_kubectl("cp", src, f"{self.ns}/web:/tmp/blob")
                vals.append(time.monotonic() - t0)
                got = self.run_kubectl("exec", "web", "--", "sh", "-c", "wc -c < /tmp/blob; rm -f /tmp/blob")
                if int(got.split()[0]) != size:
                    raise RuntimeError(f"kubectl cp: {got!r} bytes arrived of {size}")
                rss.append(self.status(self.agent.pid)["VmRSS"] / 1024)
            self.record("cp", vals, loads)
            self.record("cp.rss", rss, loads)
        if self.want("cp.cpu"):
            loads = [load1()]
            cpu = self.cpu_per_run(lambda: self.run_kubectl("cp", src, f"{self.ns}/web:/tmp/blob"), self.runs)
            self.record("cp.cpu", [cpu], loads, f"{self.runs} runs in a row")
        self.delete("web")

    def cpu_per_run(self, run, n, idle=10):
        """The agent's CPU (ms) per call of run, n calls in a row, less what the agent takes at idle
        (its rate over the idle seconds just before)."""
        hz = os.sysconf("SC_CLK_TCK")
        pid = self.agent.pid
        c0, w0 = self.ticks(pid), time.monotonic()
        time.sleep(idle)
        c1, w1 = self.ticks(pid), time.monotonic()
        rate = (c1 - c0) / (w1 - w0)
        for _ in range(n):
            run()
        c2, w2 = self.ticks(pid), time.monotonic()
        return max(0.0, (c2 - c1) - rate * (w2 - w1)) / hz * 1000 / n

    def exec_steps(self):
        """kubectl exec -- true in steps (ms), from kubectl's log (-v=7): see kubectl_steps."""
        start = time.time()
        r = subprocess.run(self.kubectl + ["-v=7", "exec", "web", "--", "true"], capture_output=True, text=True,
                           timeout=600)
        end = time.time()
        if r.returncode != 0:
            raise RuntimeError(f"kubectl exec: {r.returncode} {r.stderr[-300:]!r}")
        return kubectl_steps(r.stderr, "/exec?", start, end)

    def port_forward(self, steps=False):
        """ms from starting kubectl port-forward to the first byte of an HTTP answer through it;
        with steps, that time in steps instead (kubectl's log, -v=7: see kubectl_steps)."""
        log = tempfile.TemporaryFile(mode="w+") if steps else subprocess.DEVNULL
        start = time.time()
        t0 = time.monotonic()
        p = subprocess.Popen(self.kubectl + (["-v=7"] if steps else []) + ["port-forward", "pod/web", ":8080"],
                             stdout=subprocess.PIPE, stderr=log, text=True)
        try:
            line = p.stdout.readline()  # Forwarding from 127.0.0.1:NNNNN -> 8080
            if "127.0.0.1:" not in line:
                raise RuntimeError(f"kubectl port-forward said {line!r}")
            lport = int(line.split("127.0.0.1:")[1].split()[0])
            with socket.create_connection(("127.0.0.1", lport), timeout=30) as s:
                s.sendall(b"GET / HTTP/1.0\r\n\r\n")
                if not s.recv(1):
                    raise RuntimeError("port-forward: no answer")
                ms = (time.monotonic() - t0) * 1000
                end = time.time()
                while s.recv(65536):
                    pass
            if steps:
                p.kill()
                p.wait()
                log.seek(0)
                return kubectl_steps(log.read(), "/portforward", start, end)
            return ms
        finally:
            p.kill()
            p.wait()
            if steps:
                log.close()

    def many(self):
        """PODS pods on the node, a third with an HTTP readiness and a TCP liveness probe."""
        if self.many_up:
            return
        n = int(self.c["pods"])
        t0 = time.monotonic()
        bodies = []
        for i in range(n):
            b = pod(self.node, f"m-{i}", WEB if i % 3 == 0 else SLEEPER)
            b["metadata"]["labels"] = {"bench-compare-many": "1"}
            if i % 3 == 0:
                b["spec"]["containers"][0]["readinessProbe"] = {"httpGet": {"path": "/", "port": 8080}, "periodSeconds": 10}
                b["spec"]["containers"][0]["livenessProbe"] = {"tcpSocket": {"port": 8080}, "periodSeconds": 10}
            bodies.append(b)
        sem = threading.Semaphore(8)

        def make(b):
            with sem:
                self.create(b)
        threads = [threading.Thread(target=make, args=(b,)) for b in bodies]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        self.until(f"{n} pods running", lambda: self.many_running() >= n, 1800, 2)
        say(f"{self.kind}: {n} pods running after {time.monotonic() - t0:.0f} s")
        self.many_up = True
        self.many_at = time.monotonic()

    def many_running(self):
        return sum(1 for p in self.pods("bench-compare-many") if containers_running(p))

    def api_idle(self):
        """The node's own requests over RUNS windows of API_IDLE s with PODS pods running."""
        self.many()
        # Idle begins once the pods' start-up has been told: SETTLE s after they came up (not again
        # after an earlier row's settle), then until the node has created no event for 20 s
        # (jkubelet's StartupTimeline events, one per pod at its first Ready, go out at the node's
        # client rate, and took the first minute after 110 pods started).
        time.sleep(max(0.0, int(self.c["settle"]) - (time.monotonic() - self.many_at)))
        def no_event_created():
            now = time.time()
            got = bench_audit.node_requests(self.c["state"], now - 20, now, self.user) or {}
            return got.get(("CREATE", "events"), 0) == 0
        self.until("20 s without an event created by the node", no_event_created, 600, 5)
        windows, loads = [], []
        for i in range(self.runs):
            loads.append(load1())
            t0 = time.time()
            time.sleep(int(self.c["api_idle"]))  # the window itself
            windows.append((t0, time.time()))
        self.requests_row("api.idle", windows, loads, f"windows of {self.c['api_idle']} s")

    def requests_row(self, row, windows, loads, what, pods=0):
        """A row of the node's own API requests per minute in each window (start, end: seconds since
        the epoch), from the control plane's audit log; the note has the four most frequent kinds, and
        the requests in all per pod when the windows churned pods."""
        time.sleep(1)  # the API server writes a request's line once it has answered it
        per_window = bench_audit.node_requests_in(self.c["state"], windows, self.user)
        if per_window is None:
            self.record(row, [], loads, "no audit log: the control plane was started without JKUBELET_AUDIT_NODES=1")
            return
        counts, vals, minutes = {}, [], 0.0
        for (start, end), got in zip(windows, per_window):
            vals.append(sum(got.values()) / ((end - start) / 60))
            minutes += (end - start) / 60
            for k, v in got.items():
                counts[k] = counts.get(k, 0) + v
        top = sorted(counts.items(), key=lambda kv: -kv[1])[:4]
        if pods:
            what += f"; {sum(counts.values()) / pods:.1f} requests per pod in all"
        self.record(row, vals, loads, f"{what}; per minute: " + ", ".join(
            f"{v / minutes:.1f} {verb} {res}" for (verb, res), v in top))

    def scrapes(self):
        self.many()
        time.sleep(int(self.c["settle"]))
        paths = {"scrape.metrics": "/metrics", "scrape.cadvisor": "/metrics/cadvisor", "scrape.summary": "/stats/summary"}
        absent, sizes = set(), {}
        for row, path in paths.items():
            code, body = self.api.kubelet(self.port, path)  # warm-up
            if code == 404:
                absent.add(row)
            elif code != 200:
                raise RuntimeError(f"GET {path}: {code} {body[:200]!r}")
            else:
                series = sum(1 for l in body.decode().splitlines() if l and not l.startswith("#"))
                sizes[row] = f"{len(body) // 1024} KiB" + ("" if row == "scrape.summary" else f", {series} series")
        vals = {r: [] for r in paths}
        parts = {r: [] for r in paths}
        loads = []
        for _ in range(self.runs):
            loads.append(load1())
            for row, path in paths.items():
                if row in absent:
                    continue
                t0 = time.monotonic()
                code, body = self.api.kubelet(self.port, path)
                vals[row].append((time.monotonic() - t0) * 1000)
                parts[row].append(self.api.kubelet_parts(self.port, path))
        for row in paths:
            if self.want(row):
                if row in absent:
                    self.record(row, [], loads, "not served (404)")
                else:
                    hs, first, again = (statistics.median(p[i] for p in parts[row]) for i in range(3))
                    self.record(row, vals[row], loads, f"{sizes[row]}; medians: TLS handshake {hs:.1f} ms, "
                                f"the GET on it {first:.1f} ms, a second GET on it {again:.1f} ms")

    def metric_count(self, name):
        code, body = self.api.kubelet(self.port, "/metrics", timeout=10)
        if code != 200:
            return -1
        total = 0
        for line in body.decode().splitlines():
            if line.startswith(name + " ") or line.startswith(name + "{"):
                total += float(line.rsplit(" ", 1)[1])
        return total

    def containers(self):
        out = subprocess.run(["docker", "ps", "-q", "--no-trunc", "--filter", f"label=io.kubernetes.pod.namespace={self.ns}"],
                             capture_output=True, text=True).stdout
        return set(out.split())

    def footprint(self):
        self.many()
        n = int(self.c["pods"])
        hz = os.sysconf("SC_CLK_TCK")
        rss, cpu, threads, startup, loads = [], [], [], [], []
        for i in range(self.runs):
            time.sleep(int(self.c["settle"]))
            loads.append(load1())
            before = self.containers()
            self.stop_agent()
            self.start_agent()
            floor = int(self.t_start)
            # Adopted: the Node Ready with a heartbeat of the new process, and the new process has
            # synced every pod once: both kubelets count a pod in kubelet_pod_start_duration_seconds
            # at its first sync after a start (upstream at the sync's start, jkubelet at its end).
            t = self.until("the pods adopted", lambda: self.node_ready_since(floor)
                           and self.metric_count("kubelet_pod_start_duration_seconds_count") >= n, 600, 0.05)
            startup.append(t - self.t_start_mono)
            after = self.containers()
            note = "" if before == after else "WARNING: the pods' containers changed across the restart"
            if note:
                say(f"{self.kind}: {note}")
            time.sleep(int(self.c["warmup"]))
            pid = self.agent.pid
            c0, w0 = self.ticks(pid), time.monotonic()
            time.sleep(int(self.c["idle"]))
            c1, w1 = self.ticks(pid), time.monotonic()
            self.alive()
            cpu.append((c1 - c0) / hz / (w1 - w0) * 100)
            st = self.status(pid)
            rss.append(st["VmRSS"] / 1024)
            threads.append(st["Threads"])
        self.record("footprint.rss", rss, loads)
        self.record("footprint.cpu", cpu, loads)
        self.record("footprint.threads", threads, loads)
        self.record("footprint.startup", startup, loads)

    @staticmethod
    def ticks(pid):
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(") ", 1)[1].split()
        return int(fields[11]) + int(fields[12])

    @staticmethod
    def status(pid):
        out = {}
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("VmRSS", "Threads"):
                    out[k] = int(v.split()[0])
        return out

    def all_running_on_engine(self):
        """Every pod of PODS Running, each of its containers running by the API and by the engine."""
        pods = self.pods("bench-compare-many")
        if len(pods) < int(self.c["pods"]) or not all(containers_running(p) for p in pods):
            return False
        ids = [c["containerID"].split("://", 1)[1] for p in pods for c in p["status"]["containerStatuses"]]
        out = subprocess.run(["docker", "inspect", "-f", "{{.State.Running}}"] + ids, capture_output=True, text=True)
        return out.returncode == 0 and set(out.stdout.split()) == {"true"}

    def fail_docker(self):
        """From the engine's stop (dockerd, with its containers) until every pod runs again."""
        loads, vals = [], []
        for _ in range(self.runs):
            loads.append(load1())
            t0 = time.monotonic()
            subprocess.run([self.c["engine_sh"], "--stop", self.c["engine"]], check=True)
            subprocess.run([self.c["engine_sh"], self.c["engine"]], check=True, stdout=subprocess.DEVNULL)
            t = self.until("every pod running again", self.all_running_on_engine, 1200, 0.5)
            vals.append(t - t0)
            time.sleep(int(self.c["settle"]))
        self.record("fail.docker", vals, loads, "from dockerd's stop")

    def fail_apiserver(self):
        state = self.c["state"]
        down = int(self.c["apiserver_down"])
        loads, vals = [], []
        for _ in range(self.runs):
            loads.append(load1())
            victim = next(p for p in self.pods("bench-compare-many") if p["metadata"]["name"] == "m-1")
            cid = victim["status"]["containerStatuses"][0]["containerID"].split("://", 1)[1]
            restarts = victim["status"]["containerStatuses"][0]["restartCount"]
            pid = int(open(f"{state}/apiserver.pid").read())
            # It stops listening at once, and exits once its requests are done (up to a minute).
            t_down = time.monotonic()
            os.kill(pid, signal.SIGTERM)
            # Half way through, a container dies: the kubelet restarts it, and must report it.
            time.sleep(max(0.0, t_down + down / 2 - time.monotonic()))
            subprocess.run(["docker", "kill", cid], capture_output=True)
            while os.path.exists(f"/proc/{pid}") and "State:\tZ" not in open(f"/proc/{pid}/status").read():
                time.sleep(0.1)
            time.sleep(max(0.0, t_down + down - time.monotonic()))
            up = subprocess.Popen([self.c["k8s_up"], state], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            t_back = self.api_back(300)
            wall_back = time.time()

            def converged():
                # The status goes to the API every few minutes when nothing changed; the lease is
                # the heartbeat (every 10 s).
                if not (self.node_ready_since(0) and self.lease_renewed_since(wall_back)):
                    return False
                p = self.api.get(f"/api/v1/namespaces/{self.ns}/pods/m-1")
                c = p["status"]["containerStatuses"][0]
                return c["restartCount"] > restarts and "running" in c["state"] and containers_running(p)
            t = self.until("status converged", converged, 600, 0.1)
            vals.append(t - t_back)
            up.wait()
        # The controller manager may have given up its lease meanwhile and exited: start it again.
        subprocess.run([self.c["k8s_up"], state], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.record("fail.apiserver", vals, loads, "from the API server ready again")

    def api_back(self, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                req = urllib.request.Request(self.api.server + "/readyz")
                with urllib.request.urlopen(req, context=self.api.ctx, timeout=2) as r:
                    if r.status == 200:
                        return time.monotonic()
            except Exception:
                pass
            time.sleep(0.05)
        raise RuntimeError("the API server did not come back")

    # ---- the whole run ----

    def main(self):
        self.start_agent()
        say(f"{self.kind} pid {self.agent.pid}, node {self.node}, port {self.port}, log {self.c['agent_log']}")
        self.until(f"node {self.node} Ready", lambda: self.node_ready_since(0), 300, 0.5)
        self.api.call("POST", "/api/v1/namespaces", {"metadata": {"name": self.ns}})
        self.until("the default service account", lambda: self.api.get(f"/api/v1/namespaces/{self.ns}/serviceaccounts/default"), 60, 0.2)
        w = Watch(self.api, self.ns)
        try:
            if self.want(*GROUPS["podstart"], "api.churn"):
                self.quiet("podstart")
                self.podstart(w)
            if self.want("delete"):
                self.quiet("delete")
                self.deletion(w)
            if self.want(*GROUPS["logs"]):
                self.quiet("logs")
                self.logs()
            if self.want(*GROUPS["streams"]):
                self.quiet("streams")
                self.streams()
            if self.want(*GROUPS["scrapes"]):
                self.quiet("scrapes")
                self.scrapes()
            if self.want("api.idle"):
                self.quiet("api.idle")
                self.api_idle()
            if self.want(*GROUPS["footprint"]):
                self.quiet("footprint")
                self.footprint()
            if self.want("fail.apiserver"):
                self.quiet("fail.apiserver")
                self.many()
                self.fail_apiserver()
            if self.want("fail.docker"):
                if self.c.get("docker_restart"):
                    self.quiet("fail.docker")
                    self.many()
                    self.fail_docker()
                else:
                    self.record("fail.docker", [], [], "skipped (DOCKER_RESTART=0)")
        finally:
            w.stop()
            self.stop_agent()


def fmt(v, unit):
    if v is None:
        return "-"
    if unit in ("", "MiB") or abs(v) >= 100:
        return f"{v:.0f}"
    if abs(v) >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}" if unit != "s" else f"{v:.3f}"


def table(results, params, a="jkubelet", b="kubelet"):
    """The rows of agents a and b side by side; b is the upstream kubelet, jkubelet-off or jkubelet-base."""
    name = {"jkubelet": "jkubelet", "kubelet": "upstream", "jkubelet-off": "off", "jkubelet-base": "base"}
    an, bn = name.get(a, a), name.get(b, b)
    got = {}
    for line in open(results):
        r = json.loads(line)
        got[(r["kind"], r["row"])] = r  # the last run of a row counts
    print()
    if b == "kubelet":
        print(f"jkubelet against the upstream kubelet v1.20.2, same machine ({os.cpu_count()} cores), engine and control plane;"
              f" each figure the median of its runs; ratio = jkubelet / upstream")
    elif b == "jkubelet-base":
        print(f"jkubelet against another build of itself (JKUBELET_BASE={os.environ.get('JKUBELET_BASE', '?')}), same machine"
              f" ({os.cpu_count()} cores), engine and control plane; each figure the median of its runs; ratio = {an} / {bn}")
    else:
        print(f"jkubelet against itself with its own reports off (start-up timeline, pull progress), same machine"
              f" ({os.cpu_count()} cores), engine and control plane; each figure the median of its runs; ratio = {an} / {bn}")
    hdr = f"{'row':<48} {'unit':<5} {'better':<6} {an:>9} {bn:>9} {'ratio':>6}  load at each run's start ({an} | {bn})"
    print(hdr)
    print("-" * len(hdr))
    warn = False
    for rid, label, unit, better in ROWS:
        for k, v in params.items():
            label = label.replace(k, str(v))
        j, u = got.get((a, rid)), got.get((b, rid))
        if j is None and u is None:
            continue
        jm = median(j["values"]) if j else None
        um = median(u["values"]) if u else None
        ratio = f"{jm / um:.2f}" if jm is not None and um else "-"
        loads = []
        for r in (j, u):
            ls = r["loads"] if r else []
            warn = warn or any(l > 2 for l in ls)
            loads.append(",".join(f"{l:.1f}{'!' if l > 2 else ''}" for l in ls) or "-")
        ns = [(n, r["note"]) for n, r in ((an, j), (bn, u)) if r and r["note"]]
        if len(ns) == 2 and ns[0][1] == ns[1][1]:
            notes = ns[0][1]
        else:
            notes = "; ".join(f"{n}: {note}" for n, note in ns)
        print(f"{label:<48} {unit:<5} {better:<6} {fmt(jm, unit):>9} {fmt(um, unit):>9} {ratio:>6}  {loads[0]} | {loads[1]}"
              + (f"  ({notes})" if notes else ""))
    if warn:
        print("WARNING: the load average was above 2 at the start of the runs marked '!': "
              "figures from a busy machine, not to be quoted as the agents' own.")


def main():
    if sys.argv[1] == "measure":
        c = json.load(open(sys.argv[2]))
        Bench(c).main()
    elif sys.argv[1] == "table":
        table(sys.argv[2], json.loads(sys.argv[3]) if len(sys.argv) > 3 else {}, *sys.argv[4:6])
    else:
        sys.exit("usage: bench-compare.py measure CONFIG | table RESULTS [PARAMS_JSON [A B]]")


if __name__ == "__main__":
    main()
