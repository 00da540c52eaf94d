"""The nodes' own API requests, from the audit log that k8s-up.sh has the API server write with
JKUBELET_AUDIT_NODES=1 (STATE/audit-nodes.log: one JSON line per request of group system:nodes;
user, verb and resource, no bodies). Used by bench-scale.py and bench-compare.py."""
import datetime, glob, json, os


def node_requests(state, start, end, user_prefix):
    """The requests of the users whose name starts with user_prefix (e.g. "system:node:cmp-"),
    received from start to end (seconds since the epoch), by verb and resource: {(VERB,
    "resource[/subresource]"): count}; None when the control plane keeps no audit log."""
    got = node_requests_in(state, [(start, end)], user_prefix)
    return None if got is None else got[0]


def node_requests_in(state, windows, user_prefix):
    """As node_requests, one count per window (start, end), the logs read once for all of them.
    The rotated logs are read too: at 100 nodes one churn's requests pass the 100 MB at which the
    API server starts a new file."""
    logs = sorted(glob.glob(os.path.join(state, "audit-nodes*.log")))
    if not logs:
        return None
    out = [{} for _ in windows]
    first = min(start for start, _ in windows)
    wanted = user_prefix.encode()
    for log in logs:
        if os.path.getmtime(log) < first:
            continue  # rotated before the first window began
        with open(log, "rb") as f:
            for line in f:
                if wanted not in line:
                    continue  # another user's request: not decoded (the log is tens of MB)
                try:
                    ev = json.loads(line)
                except ValueError:
                    continue  # a line the API server is still writing
                if not ev.get("user", {}).get("username", "").startswith(user_prefix):
                    continue
                at = datetime.datetime.fromisoformat(
                    ev.get("requestReceivedTimestamp", "").replace("Z", "+00:00")).timestamp()
                ref = ev.get("objectRef") or {}
                res = ref.get("resource", "") + ("/" + ref["subresource"] if ref.get("subresource") else "")
                key = (ev.get("verb", "").upper(), res)
                for (start, end), counts in zip(windows, out):
                    if start <= at <= end:
                        counts[key] = counts.get(key, 0) + 1
    return out
