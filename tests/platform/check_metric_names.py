"""Checks the alert rules, their promtool tests and the Grafana dashboard against what a running
router exports: every metric they name must be in a real /metrics scrape, with the label names
they use; so a renamed metric or label breaks this check, not an on-call night.

usage: check_metric_names.py SCRAPE RULES PROMTOOL_TESTS DASHBOARD OPERATIONS_MD

Each rule's runbook_url must also lead to an anchor of docs/operations.md.
"""
import json
import re
import sys

import yaml

scrape_path, rules_path, tests_path, dashboard_path, operations_path = sys.argv[1:6]
operations = open(operations_path).read()
ADDED_BY_PROMETHEUS = {"job", "instance"}
PROMETHEUS_OWN = {"up": set()}
# kube-state-metrics' container series (docs/metrics/workload/pod-metrics.md of kube-state-metrics
# 2.10+), which the fenced-producer alert reads: the router's exit status outlives it only there.
KUBE_STATE_METRICS = {
    "kube_pod_container_status_last_terminated_exitcode": {"namespace", "pod", "uid", "container"},
    "kube_pod_container_status_restarts_total": {"namespace", "pod", "uid", "container"},
}
NAME = re.compile(r"\b((?:outbox_router|process|kube_pod_container)_[a-zA-Z0-9_]*)\b(\{[^}]*\})?")
GROUPING = re.compile(r"\b(?:by|without|on|ignoring)\s*\(([^)]*)\)")

exported = dict(PROMETHEUS_OWN) | KUBE_STATE_METRICS  # metric name -> label names seen
for line in open(scrape_path):
    line = line.strip()
    if line.startswith("# TYPE "):
        _, _, name, kind = line.split()
        names = [name + suffix for suffix in ("_bucket", "_sum", "_count")] if kind == "histogram" else [name]
        for n in names:
            exported.setdefault(n, set())
    elif line and not line.startswith("#"):
        series = line.split(" ")[0]
        name = series.split("{")[0]
        labels = re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)=\"", series)
        exported.setdefault(name, set()).update(labels)

problems = []
uses = 0


def check_expression(where, expr):
    global uses
    names = NAME.findall(expr)
    if not names and not re.search(r"\bup\b", expr):
        problems.append(f"{where}: names no metric the router exports: {expr}")
    labels_of_expression = set()
    for name, matchers in names:
        uses += 1
        if name not in exported:
            problems.append(f"{where}: {name} is not in the router's /metrics")
            continue
        labels_of_expression |= exported[name]
        for label in re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)\s*(?:=~|!~|!=|=)", matchers or ""):
            if label not in exported[name] | ADDED_BY_PROMETHEUS:
                problems.append(f"{where}: {name} has no label {label}")
    for group in GROUPING.findall(expr):
        for label in filter(None, (l.strip() for l in group.split(","))):
            if label not in labels_of_expression | ADDED_BY_PROMETHEUS:
                problems.append(f"{where}: grouping by {label}, which none of its metrics has")


for group in yaml.safe_load(open(rules_path))["groups"]:
    for rule in group["rules"]:
        check_expression(f"rule {rule.get('alert') or rule.get('record')}", rule["expr"])
        runbook = rule.get("annotations", {}).get("runbook_url", "")
        if not runbook.startswith("docs/operations.md#"):
            problems.append(f"rule {rule.get('alert')}: no runbook_url into docs/operations.md")
        elif f'id="{runbook.split("#", 1)[1]}"' not in operations:
            problems.append(f"rule {rule.get('alert')}: operations.md has no anchor {runbook.split('#', 1)[1]}")

for test in yaml.safe_load(open(tests_path))["tests"]:
    for series in test["input_series"]:
        text = series["series"]
        name = text.split("{")[0]
        labels = set(re.findall(r"([a-zA-Z_][a-zA-Z0-9_]*)=", text)) - ADDED_BY_PROMETHEUS
        uses += 1
        if name not in exported:
            problems.append(f"test series {text}: {name} is not in the router's /metrics")
        elif labels != exported[name]:
            problems.append(f"test series {text}: label names {sorted(labels)}, the router's are {sorted(exported[name])}")

dashboard = json.load(open(dashboard_path))
for panel in dashboard["panels"]:
    for target in panel.get("targets", []):
        check_expression(f"panel {panel['title']!r}", target["expr"])
for variable in dashboard["templating"]["list"]:
    if variable.get("definition"):
        check_expression(f"variable {variable['name']}", variable["definition"])

for problem in problems:
    print("FAIL " + problem)
print(f"{uses} metric uses checked against {len(exported)} exported names")
print(f"{uses - len(problems)} passed, {len(problems)} failed")
sys.exit(1 if problems else 0)
