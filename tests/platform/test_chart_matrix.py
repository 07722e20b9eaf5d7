"""The Helm chart (deploy/helm/outbox-router) rendered by the real helm for a matrix of values and
validated, every manifest, by kubernetes-validate in strict mode against several Kubernetes
minors; plus what the schemas cannot see (probes, the pair, secrets kept out of the ConfigMap,
the grace period) and the values and manifests that must be refused.

usage: test_chart_matrix.py HELM CHART_DIR VALUES_DIR
"""
import copy
import subprocess
import sys
import tempfile

import kubernetes_validate
import yaml

HELM, CHART, VALUES = sys.argv[1:4]
KUBERNETES_MINORS = ["1.25.0", "1.29.0", "1.33.0", "1.37.0"]
MATRIX = ["defaults", "pair", "tls-everywhere", "exactly-once", "metrics-off"]
OPERATOR_KINDS = {"ServiceMonitor", "PodMonitor", "PrometheusRule"}  # CRDs: kubernetes-validate has no schema

results = []


def check(name, condition, detail=""):
    results.append((name, bool(condition)))
    print(("ok   " if condition else "FAIL ") + name + ("" if condition else f": {detail}"))


def render(values_files=(), sets=(), kube="1.33.0"):
    command = [HELM, "template", "outbox", CHART, "--kube-version", kube]
    for f in values_files:
        command += ["-f", f]
    for s in sets:
        command += ["--set", s]
    done = subprocess.run(command, capture_output=True, text=True)
    return done.returncode, done.stdout, done.stderr


def render_values(text, kube="1.33.0"):
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as f:
        f.write(text)
        f.flush()
        return render([f.name], kube=kube)


def documents(text):
    return [d for d in yaml.safe_load_all(text) if d]


def of_kind(docs, kind):
    return [d for d in docs if d["kind"] == kind]


def validation_errors(docs, version):
    errors = []
    for d in docs:
        if d["kind"] in OPERATOR_KINDS:
            continue
        try:
            kubernetes_validate.validate(d, version, strict=True)
        except (kubernetes_validate.ValidationError, kubernetes_validate.SchemaNotFoundError,
                kubernetes_validate.InvalidSchemaError) as e:
            errors.append(f"{d['kind']}/{d['metadata']['name']}: {e}")
    return errors


def values_of(case):
    merged = yaml.safe_load(open(f"{CHART}/values.yaml"))
    if case != "defaults":
        overlay = yaml.safe_load(open(f"{VALUES}/{case}.yaml"))

        def merge(a, b):
            for k, v in b.items():
                a[k] = merge(a.get(k, {}), v) if isinstance(v, dict) and isinstance(a.get(k), dict) else v
            return a
        merge(merged, overlay)
    return merged


def shape_checks(case, docs, values):
    deployment = of_kind(docs, "Deployment")[0]
    pod = deployment["spec"]["template"]["spec"]
    container = pod["containers"][0]
    config_text = of_kind(docs, "ConfigMap")[0]["data"]["router.yaml"]
    config = yaml.safe_load(config_text)
    prefix = f"{case}: "

    # Security: non-root, read-only root, no escalation, no capabilities, no service-account token.
    context = container["securityContext"]
    check(prefix + "restricted security context",
          pod["securityContext"]["runAsNonRoot"] and context["readOnlyRootFilesystem"]
          and context["allowPrivilegeEscalation"] is False and context["capabilities"]["drop"] == ["ALL"]
          and pod["securityContext"]["seccompProfile"]["type"] == "RuntimeDefault"
          and pod["automountServiceAccountToken"] is False, context)

    # Secrets: only references in the ConfigMap; every file it reads is under a Secret's mount.
    check(prefix + "no password in the ConfigMap",
          all("${" in v for k, v in _flatten(config) if "password" in k.lower()) and
          all("password=" not in v or "password='${" in v or "password=${" in v
              for _, v in _flatten(config) if isinstance(v, str)), config_text)
    mounts = {m["mountPath"]: m for m in container["volumeMounts"]}
    secret_volumes = {v["name"] for v in pod["volumes"] if "secret" in v}
    secret_mounts = [p for p, m in mounts.items() if m["name"] in secret_volumes]
    referenced = [v.split("${file:")[1].split(":")[0] for _, v in _flatten(config)
                  if isinstance(v, str) and "${file:" in v]
    check(prefix + "every ${file:...} is under a mounted Secret",
          all(any(r.startswith(p + "/") for p in secret_mounts) for r in referenced), (referenced, secret_mounts))
    check(prefix + "Secrets mounted read-only", all(mounts[p].get("readOnly") for p in secret_mounts))

    # Stopping: the grace period covers shutdown.timeout.ms and the final status update.
    shutdown_s = -(-int(config.get("shutdown.timeout.ms", 30000)) // 1000)
    check(prefix + "terminationGracePeriodSeconds above shutdown.timeout.ms",
          pod["terminationGracePeriodSeconds"] >= shutdown_s + 6, (pod["terminationGracePeriodSeconds"], shutdown_s))

    metrics_on = values["metrics"]["enabled"]
    if metrics_on:
        port = container["ports"][0]
        check(prefix + "metrics.listen is the container port on every interface",
              config["metrics"]["listen"] == f"0.0.0.0:{port['containerPort']}", config.get("metrics"))
        live = container["livenessProbe"]
        ready = container["readinessProbe"]
        check(prefix + "liveness on /healthz, restarting only after a minute of failures",
              live["httpGet"]["path"] == "/healthz" and live["periodSeconds"] * live["failureThreshold"] >= 60
              and live["timeoutSeconds"] >= 2, live)
        expected_ready = "/healthz" if values["pair"]["enabled"] else "/readyz"
        check(prefix + f"readiness on {expected_ready}", ready["httpGet"]["path"] == expected_ready, ready)
        services = of_kind(docs, "Service")
        check(prefix + "the metrics Service publishes not-ready pods (standby, Kafka away)",
              services and services[0]["spec"]["publishNotReadyAddresses"] is True)
        for monitor in of_kind(docs, "ServiceMonitor") + of_kind(docs, "PodMonitor"):
            endpoints = monitor["spec"].get("endpoints") or monitor["spec"].get("podMetricsEndpoints")
            check(prefix + f"{monitor['kind']} scrapes the container's port by name and selects the pods",
                  endpoints[0]["port"] == port["name"] and endpoints[0]["path"] == "/metrics" and
                  monitor["spec"]["selector"]["matchLabels"].items() <= deployment["spec"]["template"]["metadata"]["labels"].items())
    else:
        check(prefix + "no listener, no probes, no ports, no Service",
              "metrics" not in config and "livenessProbe" not in container and "readinessProbe" not in container
              and "ports" not in container and not of_kind(docs, "Service"))

    rules = of_kind(docs, "PrometheusRule")
    check(prefix + "a PrometheusRule exactly when asked", len(rules) == (1 if values["prometheusRule"]["enabled"] else 0))
    for rule in rules:
        original = yaml.safe_load(open(f"{CHART}/files/outbox-router-alerts.yaml"))["groups"]
        rendered = rule["spec"]["groups"]
        base = values["prometheusRule"]["runbookBaseUrl"]
        same = len(original) == len(rendered) and all(
            len(a["rules"]) == len(b["rules"]) and all(
                {k: v for k, v in x.items() if k not in ("annotations", "expr")} ==
                {k: v for k, v in y.items() if k not in ("annotations", "expr")} and
                y["annotations"]["runbook_url"] == x["annotations"]["runbook_url"].replace("docs/operations.md", base) and
                y["expr"] == x["expr"].replace('job=~".*outbox-router.*"', f'job=~"{values["prometheusRule"]["jobPattern"]}"')
                for x, y in zip(a["rules"], b["rules"]))
            for a, b in zip(original, rendered))
        check(prefix + "the PrometheusRule holds every alert, with the runbook base and job pattern given", same, rendered)

    if values["pair"]["enabled"]:
        anti = pod["affinity"]["podAntiAffinity"]["requiredDuringSchedulingIgnoredDuringExecution"][0]
        pdb = of_kind(docs, "PodDisruptionBudget")
        check(prefix + "two replicas, anti-affinity on the pod's own labels, one at a time in rollouts",
              deployment["spec"]["replicas"] == 2 and anti["topologyKey"] == "kubernetes.io/hostname"
              and anti["labelSelector"]["matchLabels"].items() <= deployment["spec"]["template"]["metadata"]["labels"].items()
              and deployment["spec"]["strategy"]["rollingUpdate"] == {"maxSurge": 0, "maxUnavailable": 1})
        check(prefix + "PodDisruptionBudget keeps one of the pair",
              len(pdb) == 1 and pdb[0]["spec"]["minAvailable"] == 1
              and pdb[0]["spec"]["selector"] == deployment["spec"]["selector"])
    else:
        check(prefix + "one replica, Recreate (a second could only wait for the slot), no PDB",
              deployment["spec"]["replicas"] == 1 and deployment["spec"]["strategy"]["type"] == "Recreate"
              and not of_kind(docs, "PodDisruptionBudget"))

    for policy in of_kind(docs, "NetworkPolicy"):
        ingress_ports = [p["port"] for rule in policy["spec"]["ingress"] for p in rule.get("ports", [])]
        check(prefix + "NetworkPolicy admits only the metrics port and selects the pods",
              ingress_ports == ([port["name"]] if metrics_on else []) and
              policy["spec"]["podSelector"]["matchLabels"].items() <= deployment["spec"]["template"]["metadata"]["labels"].items(),
              policy["spec"])


def _flatten(node, prefix=""):
    if isinstance(node, dict):
        for k, v in node.items():
            yield from _flatten(v, f"{prefix}{k}.")
    else:
        yield prefix.rstrip("."), node


for case in MATRIX:
    files = [] if case == "defaults" else [f"{VALUES}/{case}.yaml"]
    for kube in KUBERNETES_MINORS:
        code, out, err = render(files, kube=kube)
        check(f"{case}: helm renders for Kubernetes {kube}", code == 0, err)
        if code != 0:
            continue
        docs = documents(out)
        errors = validation_errors(docs, kube)
        check(f"{case}: {len(docs)} manifests valid (strict) for Kubernetes {kube}", not errors, errors)
    if code == 0:
        shape_checks(case, documents(out), values_of(case))
    lint = subprocess.run([HELM, "lint", "--strict", CHART] + sum((["-f", f] for f in files), []),
                          capture_output=True, text=True)
    check(f"{case}: helm lint --strict", lint.returncode == 0, lint.stdout + lint.stderr)

# Values the schema (values.schema.json) or the templates must refuse.
refusals = {
    "a literal sasl.password": ("config:\n  kafka:\n    sasl.password: hunter2\n", "sasl.password"),
    "a literal password in conninfo": ("config:\n  postgres:\n    conninfo: \"host=db password=hunter2\"\n", "conninfo"),
    "a password in a conninfo URI": ("config:\n  postgres:\n    conninfo: \"postgresql://outbox:hunter2@db/app\"\n", "conninfo"),
    "a ServiceMonitor without the listener": ("metrics:\n  enabled: false\n  serviceMonitor:\n    enabled: true\n", "serviceMonitor"),
    "metrics.listen set by hand": ("config:\n  metrics:\n    listen: 127.0.0.1:1\n", "listen"),
    "an unknown values key": ("replicaCount: 3\n", "replicaCount"),
    "an unknown anti-affinity": ("pair:\n  enabled: true\n  antiAffinity: sometimes\n", "antiAffinity"),
    "a secret file without its Secret": ("secretFiles:\n  - name: kafka\n", "secretName"),
    "running as root": ("podSecurityContext:\n  runAsNonRoot: false\n", "runAsNonRoot"),
    "a liveness probe that never fails": ("probes:\n  liveness:\n    failureThreshold: 0\n", "failureThreshold"),
}
for name, (text, named) in refusals.items():
    code, _, err = render_values(text)
    check(f"refused: {name}", code != 0 and named in err, (code, err))

# Manifests that must fail validation: what the values schema lets through but Kubernetes refuses.
code, out, err = render_values("resources:\n  requests:\n    cpu: [1]\n")
check("refused by kubernetes-validate: a resource request that is a list",
      code == 0 and validation_errors(documents(out), "1.33.0"), err)
code, out, _ = render()
docs = documents(out)
broken = copy.deepcopy(docs)
of_kind(broken, "Deployment")[0]["spec"]["template"]["spec"]["containers"][0]["livenessProbe"]["httpGett"] = {}
check("refused by kubernetes-validate (strict): an unknown field", validation_errors(broken, "1.33.0"))
broken = copy.deepcopy(docs)
of_kind(broken, "Deployment")[0]["spec"]["replicas"] = "two"
check("refused by kubernetes-validate: a wrongly typed field", validation_errors(broken, "1.25.0"))
broken = copy.deepcopy(docs)
del of_kind(broken, "Deployment")[0]["spec"]["selector"]
check("refused by kubernetes-validate: a missing required field", validation_errors(broken, "1.37.0"))

passed = sum(1 for _, ok in results if ok)
failed = len(results) - passed
print(f"{passed} passed, {failed} failed")
sys.exit(1 if failed else 0)
