#!/usr/bin/env bash
# Probe benchmark: N static pods with 3 probes each, every probe with periodSeconds 1, run by
# jkubelet from the file source. Over a measuring window it prints how far each probe worker's
# period drifted, the ticks skipped because an attempt was still running, and what jkubelet (and
# the engine) cost in CPU, threads and memory.
#
# Usage: deploy/scripts/bench-probes.sh [N] [WINDOW]     (defaults: 100 60; WINDOW in seconds)
#   PROBE_MIX=http,tcp,http   the kind of each pod's probes, in this order: the web container's
#                             readinessProbe, its livenessProbe, then the side container's
#                             livenessProbe and readinessProbe (1 to 4 of http, tcp, exec).
#                             exec probes go through `docker exec`; compare with http,tcp,exec.
#   WARMUP=10                 seconds to wait after every probe has run, before the window
#   STARTUP_TIMEOUT=600       seconds allowed for the pods to run and every probe to attempt
#   KEEP_LOG=1                keep jkubelet's log (its path is printed) instead of removing it
#
# Each pod is a busybox `httpd` ("web", port 8080) and a sleeping "side" container, which shares
# web's network namespace, so its http and tcp probes hit web's server too. failureThreshold is
# high, so nothing restarts; liveness and readiness probes keep running (a startup probe would
# stop once it succeeds).
#
# A worker's interval over the window is exact, not quantised to whole attempts: /probes gives
# each worker's attempts and mean interval since its first attempt, hence the start of its latest
# attempt; interval = (latest start at the end - latest start at the beginning) / (attempts in
# between). Drift = |interval - period| / period; the goal is a max drift of 10 %. The printed
# window (for the CPU figures) runs from the end of one GET /probes to the end of the other, so it
# is longer than WINDOW when /probes answers slowly (it waits for attempts in flight).
# Exits 0 whether the goal is met or not; 1 when the run itself broke.
set -euo pipefail
N=${1:-100}; WINDOW=${2:-60}
MIX=${PROBE_MIX:-http,tcp,http}
WARMUP=${WARMUP:-10}; STARTUP_TIMEOUT=${STARTUP_TIMEOUT:-600}
IFS=, read -r -a kinds <<< "$MIX"
if [ ${#kinds[@]} -lt 1 ] || [ ${#kinds[@]} -gt 4 ]; then
  echo "bench-probes: PROBE_MIX needs 1 to 4 of http, tcp, exec; got '$MIX'" >&2; exit 2
fi
for k in "${kinds[@]}"; do
  case $k in http|tcp|exec) ;; *) echo "bench-probes: unknown probe kind '$k' in PROBE_MIX" >&2; exit 2 ;; esac
done

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
source "$root/deploy/scripts/build-env.sh"
launcher=$root/agent/target/jkubelet/bin/jkubelet
offline=-o
[ -n "${JKUBELET_MVN_ONLINE:-}" ] && offline=
if [ ! -x "$launcher" ] || [ -n "$(find "$root/agent/src" "$root/config/src" -newer "$launcher" -print -quit)" ]; then
  (cd "$root" && mvn -B -ntp -q $offline -DskipTests package)
fi

node=bench-probes-$$
work=$(mktemp -d)
mkdir -p "$work/manifests"
log=$work/jkubelet.log
port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
jk_pid=""
failure=""
cleanup() {
  local rc=$?
  if [ "$rc" -ne 0 ] && [ -f "$log" ]; then
    echo "bench-probes: the last lines of jkubelet's log:" >&2
    tail -n 20 "$log" >&2 || true
    echo "bench-probes: FAILED (exit $rc)${failure:+: $failure}" >&2
  fi
  if [ -n "$jk_pid" ]; then kill "$jk_pid" 2>/dev/null && wait "$jk_pid" 2>/dev/null || true; fi
  ids=$(docker ps -aq --filter "label=io.jkubelet.node=$node")
  [ -n "$ids" ] && docker rm -f $ids >/dev/null 2>&1 || true
  if [ -n "${KEEP_LOG:-}" ] && [ -f "$log" ]; then
    cp "$log" "${TMPDIR:-/tmp}/$node.log" && echo "bench-probes: jkubelet's log kept at ${TMPDIR:-/tmp}/$node.log" >&2
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
die() { failure=$*; echo "bench-probes: $*" >&2; exit 1; }
alive() { kill -0 "$jk_pid" 2>/dev/null || die "jkubelet (pid $jk_pid) exited"; }

probe_yaml() { # kind
  case $1 in
    http) printf '{httpGet: {path: /, port: 8080}, periodSeconds: 1, failureThreshold: 1000000}' ;;
    tcp)  printf '{tcpSocket: {port: 8080}, periodSeconds: 1, failureThreshold: 1000000}' ;;
    exec) printf '{exec: {command: [cat, /www/index.html]}, periodSeconds: 1, failureThreshold: 1000000}' ;;
  esac
}
write_manifests() {
  local i www='mkdir -p /www && echo ok > /www/index.html'
  for i in $(seq 1 "$N"); do
    {
      printf 'apiVersion: v1\nkind: Pod\nmetadata: {name: probes-%s}\nspec:\n  terminationGracePeriodSeconds: 2\n  containers:\n' "$i"
      printf '  - name: web\n    image: "jkubelet/busybox:1.35"\n    command: [sh, -c, "%s && exec httpd -f -p 8080 -h /www"]\n' "$www"
      printf '    readinessProbe: %s\n' "$(probe_yaml "${kinds[0]}")"
      [ ${#kinds[@]} -ge 2 ] && printf '    livenessProbe: %s\n' "$(probe_yaml "${kinds[1]}")"
      if [ ${#kinds[@]} -ge 3 ]; then
        printf '  - name: side\n    image: "jkubelet/busybox:1.35"\n    command: [sh, -c, "%s && while :; do sleep 3600; done"]\n' "$www"
        printf '    livenessProbe: %s\n' "$(probe_yaml "${kinds[2]}")"
        [ ${#kinds[@]} -ge 4 ] && printf '    readinessProbe: %s\n' "$(probe_yaml "${kinds[3]}")"
      fi
      true
    } > "$work/p-$i.tmp"
  done
  for i in $(seq 1 "$N"); do mv "$work/p-$i.tmp" "$work/manifests/p-$i.yaml"; done
}

api() { curl -sf --max-time 120 "http://127.0.0.1:$port$1"; }
# Pods of this node whose containers all run; probe workers that made at least 2 attempts.
running_pods() {
  api /pods | python3 -c '
import json, sys
node = sys.argv[1]
n = 0
for p in json.load(sys.stdin).get("items") or []:
    st = p.get("status") or {}
    cs = st.get("containerStatuses") or []
    if p["metadata"]["name"].endswith("-" + node) and st.get("phase") == "Running" and cs \
            and all("running" in (c.get("state") or {}) for c in cs):
        n += 1
print(n)' "$node"
}
probing_workers() { # with -v: on stderr, how many workers of each container and type lag
  api /probes | python3 -c '
import collections, json, sys
items = json.load(sys.stdin)["items"]
print(sum(1 for w in items if w["attempts"] >= 2))
if sys.argv[1:]:
    lag = collections.Counter((w["container"], w["type"]) for w in items if w["attempts"] < 2)
    print("bench-probes: %d workers; fewer than 2 attempts: %s; skipped ticks: %d" % (len(items),
          ", ".join("%d %s %s" % (n, c, t) for (c, t), n in sorted(lag.items())) or "none",
          sum(w["skipped"] for w in items)), file=sys.stderr)' "$@"
}
stat_fields() { # pid first last: the sum of /proc/<pid>/stat fields first..last (1-based, as in proc(5))
  awk -v a="$2" -v b="$3" '{sub(/^.*\) /, ""); s = 0; for (i = a - 2; i <= b - 2; i++) s += $i; print s}' "/proc/$1/stat" 2>/dev/null || echo 0
}
sum_ticks() { # first last pid...: fields summed over the processes
  local a=$1 b=$2 s=0 p; shift 2
  for p in "$@"; do s=$((s + $(stat_fields "$p" "$a" "$b"))); done
  echo "$s"
}
# jkubelet's threads by name, numbers folded (e.g. "12 HttpClient-N-Wo"; Linux keeps 15 chars).
# Threads come and go (a docker exec stream has one), so a comm file may vanish before cat reads it.
thread_names() { { cat /proc/"$1"/task/*/comm 2>/dev/null || true; } | sed -E 's/[0-9]+/N/g' | sort | uniq -c; }
status_field() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status"; }
# One snapshot: /probes, then the CPU ticks (utime+stime) of jkubelet, dockerd and containerd, of
# the shims of this bench's containers with their reaped children (runc, exec'd commands), and
# the machine's busy and total ticks.
snapshot() { # name
  local t=$(date +%s.%N)
  api /probes > "$work/$1.json" || die "GET /probes failed"
  {
    echo "probes_get $(awk -v a="$t" -v b="$(date +%s.%N)" 'BEGIN {print b - a}')"
    echo "time $(date +%s.%N)"
    echo "jkubelet $(stat_fields "$jk_pid" 14 15)"
    echo "dockerd $(sum_ticks 14 15 $(pidof dockerd || true))"
    echo "containerd $(sum_ticks 14 15 $(pidof containerd || true))"
    echo "shims $(sum_ticks 14 17 "${shims[@]}")"
    awk '$1 == "cpu" {t = 0; for (i = 2; i <= NF; i++) t += $i; print "machine_busy", t - $5 - $6; print "machine_total", t}' /proc/stat
    echo "load $(cut -d' ' -f1 /proc/loadavg)"
  } > "$work/$1.stat"
}

"$launcher" run --pod-manifest-path "$work/manifests" --hostname-override "$node" --root-dir "$work/root" \
  --read-only-port "$port" --port "$((port + 1))" --healthz-port 0 --address 127.0.0.1 --pod-infra-container-image jkubelet/pause:3.2 \
  > "$log" 2>&1 &
jk_pid=$!
deadline=$((SECONDS + 120))
until curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1; do
  alive; [ $SECONDS -lt $deadline ] || die "jkubelet did not answer /healthz within 120 s"; sleep 0.2
done
sleep 2
idle_threads=$(status_field "$jk_pid" Threads)
thread_names "$jk_pid" > "$work/threads-idle"

workers=$((N * ${#kinds[@]}))
echo "bench-probes: jkubelet pid $jk_pid, node $node, port $port, log $log" >&2
echo "bench-probes: starting $N pods with probes $MIX ($workers probe workers)" >&2
write_manifests
t0=$SECONDS
deadline=$((SECONDS + STARTUP_TIMEOUT))
until [ "$(running_pods || echo 0)" -ge "$N" ]; do
  alive; [ $SECONDS -lt $deadline ] || die "the pods did not all run within $STARTUP_TIMEOUT s"; sleep 1
done
echo "bench-probes: $N pods running after $((SECONDS - t0)) s" >&2
until [ "$(probing_workers || echo 0)" -ge "$workers" ]; do
  alive
  if [ $SECONDS -ge $deadline ]; then
    probing_workers -v >/dev/null || true
    die "not every probe worker attempted within $STARTUP_TIMEOUT s"
  fi
  sleep 1
done
echo "bench-probes: every probe worker attempting after $((SECONDS - t0)) s; warming up ${WARMUP} s" >&2
sleep "$WARMUP"

# The shims of this bench's containers: the parents of their init processes.
shims=()
for p in $(docker inspect -f '{{.State.Pid}}' $(docker ps -q --filter "label=io.jkubelet.node=$node")); do
  [ "$p" -gt 0 ] && shims+=("$(stat_fields "$p" 4 4)")
done

echo "bench-probes: measuring for $WINDOW s" >&2
snapshot start
sleep "$WINDOW"
alive
snapshot end
threads=$(status_field "$jk_pid" Threads)
thread_names "$jk_pid" > "$work/threads-end"
rss_kb=$(status_field "$jk_pid" VmRSS)
warnings=$(grep -cE '^[^ ]+ WARN ' "$log" || true)
errors=$(grep -cE '^[^ ]+ ERROR ' "$log" || true)

python3 - "$work" "$N" "$MIX" "$(getconf CLK_TCK)" "$(nproc)" "$idle_threads" "$threads" "$rss_kb" \
  "$warnings" "$errors" "$log" "$(cut -d' ' -f1-3 /proc/loadavg)" <<'PY'
import json, sys
work, n, mix, hz, ncpu, idle_threads, threads, rss_kb, warnings, errors, log, loadavg = sys.argv[1:]
n, hz, ncpu = int(n), int(hz), int(ncpu)
kinds = mix.split(",")
slot = {("web", "readiness"): 0, ("web", "liveness"): 1, ("side", "liveness"): 2, ("side", "readiness"): 3}

def load(name):
    items = json.load(open(f"{work}/{name}.json"))["items"]
    stat = dict(line.split() for line in open(f"{work}/{name}.stat"))
    return {(w["podUID"], w["container"], w["type"]): w for w in items}, {k: float(v) for k, v in stat.items()}

(p0, s0), (p1, s1) = load("start"), load("end")
window = s1["time"] - s0["time"]

def latest(w):  # ms from the worker's first attempt to the start of its latest
    return w["meanIntervalMillis"] * (w["attempts"] - 1)

def off(w):  # how far the worst interval is from the period, ms
    return abs(w["worstIntervalMillis"] - w["periodMillis"])

rows, stalled, attempts, expected = [], [], 0, 0.0
for key, b in p1.items():
    a = p0.get(key)
    kind = kinds[slot[key[1:]]] if key[1:] in slot else "?"
    if a is None:
        stalled.append(key); continue
    done = b["attempts"] - a["attempts"]
    attempts += done
    expected += window * 1000 / b["periodMillis"]
    if done <= 0:
        stalled.append(key); continue
    interval = (latest(b) - latest(a)) / done
    drift = abs(interval - b["periodMillis"]) / b["periodMillis"] * 100
    new_worst = a["attempts"] < 2 or a["worstIntervalMillis"] != b["worstIntervalMillis"]
    rows.append(dict(kind=kind, drift=drift, interval=interval, b=b, a=a, new_worst=new_worst))

def pct(xs, q):  # nearest rank
    xs = sorted(xs)
    return xs[min(len(xs) - 1, max(0, -(-len(xs) * q // 100) - 1))] if xs else float("nan")

def line(label, rs):
    d = [r["drift"] for r in rs]
    iv = [r["interval"] for r in rs]
    sk = sum(r["b"]["skipped"] - r["a"]["skipped"] for r in rs)
    return (f"    {label:<5} {len(rs):4d} workers  p50 {pct(d, 50):6.2f} %  p99 {pct(d, 99):6.2f} %  "
            f"max {max(d, default=float('nan')):6.2f} %   (intervals {min(iv, default=0):.0f}-{max(iv, default=0):.0f} ms, "
            f"{sk} ticks skipped)")

def cores(k):
    return (s1[k] - s0[k]) / hz / window

print()
print(f"{n} pods x {len(kinds)} probes ({mix}) = {len(p1)} probe workers, period 1 s, "
      f"window {window:.1f} s, {ncpu} cores")
print("  probe period drift per worker, |interval - period| / period:")
print(line("all", rows))
for k in dict.fromkeys(kinds):
    print(line(k, [r for r in rows if r["kind"] == k]))
if stalled:
    print(f"  STALLED: {len(stalled)} workers made no attempt in the window, e.g. {stalled[0]}")
print(f"  GET /probes took {s0['probes_get']:.2f} s at the start of the window, {s1['probes_get']:.2f} s at the end")
print(f"  attempts in the window: {attempts} of about {expected:.0f} at exactly the period")
worst = max(p1.values(), key=off)
wkind = kinds[slot.get((worst["container"], worst["type"]), 0)]
print(f"  worst single interval: {worst['worstIntervalMillis']:.0f} ms ({wkind}; over each worker's life, "
      "pod startup included)")
inwin = [r["b"] for r in rows if r["new_worst"]]
if inwin:
    w = max(inwin, key=off)
    print(f"  worst single interval in the window: {w['worstIntervalMillis']:.0f} ms "
          f"({len(inwin)} workers had a new worst in the window)")
else:
    print("  worst single interval in the window: none beyond the earlier worst of any worker")
sk_total = sum(w["skipped"] for w in p1.values())
sk_win = sum(r["b"]["skipped"] - r["a"]["skipped"] for r in rows)
print(f"  skipped ticks: {sk_win} in the window, {sk_total} in total")
print(f"  jkubelet CPU: {cores('jkubelet'):.3f} cores ({(s1['jkubelet'] - s0['jkubelet']) / hz:.2f} s in {window:.1f} s)")
print(f"  engine CPU: dockerd {cores('dockerd'):.3f} cores, containerd {cores('containerd'):.3f}, "
      f"the bench's container shims with runc and exec'd commands {cores('shims'):.3f}")
busy = (s1["machine_busy"] - s0["machine_busy"]) / (s1["machine_total"] - s0["machine_total"]) * ncpu
print(f"  machine: {busy:.2f} of {ncpu} cores busy in the window (all processes); "
      f"load average {s0['load']:.2f} at the start, {s1['load']:.2f} at the end ({loadavg} now)")
def names(f):
    return {l.split(None, 1)[1].rstrip("\n"): int(l.split(None, 1)[0]) for l in open(f"{work}/{f}")}
t0, t1 = names("threads-idle"), names("threads-end")
grew = sorted(((t1[k] - t0.get(k, 0), k) for k in t1 if t1[k] > t0.get(k, 0)), reverse=True)
print(f"  jkubelet threads: {threads} ({idle_threads} with no pods; more now: "
      + (", ".join(f"{d} {k}" for d, k in grew) or "none") + f"); RSS {int(rss_kb) / 1024:.0f} MiB")
print(f"  jkubelet log: {warnings} WARN, {errors} ERROR lines ({log}, removed at exit unless KEEP_LOG=1)")
mx = max((r["drift"] for r in rows), default=float("inf")) if not stalled else float("inf")
print(f"{'PASS' if mx <= 10 else 'FAIL'}: max drift {mx:.2f} % (goal <= 10 %)")
PY
if [ "$warnings" -gt 0 ] || [ "$errors" -gt 0 ]; then
  echo "  distinct WARN/ERROR messages (counts):"
  grep -E '^[^ ]+ (WARN|ERROR) ' "$log" | cut -d' ' -f2- | sed -E 's/\[[^]]*\]//; s/[0-9a-f]{12,}/<id>/g; s/[0-9]+/N/g' \
    | sort | uniq -c | sort -rn | head -n 10 | cut -c1-200 || true
fi
