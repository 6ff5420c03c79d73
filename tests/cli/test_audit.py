"""The API server's audit log as a CKS task turns it on: a policy file on the control-plane node,
``--audit-policy-file`` and ``--audit-log-path`` added to the kube-apiserver's static pod
manifest with hostPath mounts for both, and the requests then read back from the node's log -
Pod Security's ``audit`` mode (``pod-security.kubernetes.io/audit-violations``) included.

Upstream: staging/src/k8s.io/apiserver/pkg/server/options/audit.go, pkg/endpoints/filters/
audit.go, pkg/audit/request.go, pod-security-admission/admission/admission.go (EvaluatePod's
audit annotations)."""

from __future__ import annotations

import json
import os

import pytest
import yaml

from kubesim.testing.cli import Harness

POLICY = """apiVersion: audit.k8s.io/v1
kind: Policy
rules:
- level: None
  resources:
  - group: ""
    resources: ["events"]
- level: RequestResponse
  resources:
  - group: ""
    resources: ["configmaps"]
- level: Metadata
  namespaces: ["psa-audit"]
"""


def node(h, *path) -> str:
    return os.path.join(h.state_dir, "nodes", "controlplane", *path)


def enable(h, policy: str | None = POLICY, mount_log: bool = True, policy_path="/etc/kubernetes/audit/policy.yaml",
           log_path="/var/log/kubernetes/audit/audit.log"):
    """What the task asks: the policy on the node, the flags and the mounts in the manifest."""
    if policy is not None:
        os.makedirs(node(h, "etc/kubernetes/audit"), exist_ok=True)
        with open(node(h, "etc/kubernetes/audit/policy.yaml"), "w") as f:
            f.write(policy)
    manifest = node(h, "manifests", "kube-apiserver.yaml")
    with open(manifest) as f:
        pod = yaml.safe_load(f)
    c = pod["spec"]["containers"][0]
    c["command"] += [f"--audit-policy-file={policy_path}", f"--audit-log-path={log_path}"]
    c["volumeMounts"] += [{"mountPath": "/etc/kubernetes/audit/policy.yaml", "name": "audit", "readOnly": True}]
    pod["spec"]["volumes"] += [{"hostPath": {"path": "/etc/kubernetes/audit/policy.yaml", "type": "File"},
                                "name": "audit"}]
    if mount_log:
        c["volumeMounts"] += [{"mountPath": "/var/log/kubernetes/audit/", "name": "audit-log"}]
        pod["spec"]["volumes"] += [{"hostPath": {"path": "/var/log/kubernetes/audit/", "type": "DirectoryOrCreate"},
                                    "name": "audit-log"}]
    with open(manifest, "w") as f:
        yaml.safe_dump(pod, f)


def events(h) -> list[dict]:
    path = node(h, "var/log/kubernetes/audit/audit.log")
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f]


@pytest.fixture
def h(tmp_path):
    h = Harness(tmp_path / "state")
    assert h("create ns psa-audit").code == 0
    assert h("label ns psa-audit pod-security.kubernetes.io/audit=restricted").code == 0
    return h


ADMIN = {"username": "kubernetes-admin", "groups": ["kubeadm:cluster-admins", "system:authenticated"],
         "extra": {"authentication.kubernetes.io/credential-id": [
             "X509SHA256=7a319aecbd725cc3584fff0c65e988bea5f469c1ab5db589057bbc7b6938ddb2"]}}
ALLOWED = {"authorization.k8s.io/decision": "allow",
           "authorization.k8s.io/reason": 'RBAC: allowed by ClusterRoleBinding "kubeadm:cluster-admins" of '
                                          'ClusterRole "cluster-admin" to Group "kubeadm:cluster-admins"'}
RESTRICTED_WEB = (
    'would violate PodSecurity "restricted:latest": allowPrivilegeEscalation != false (container "web" must set '
    'securityContext.allowPrivilegeEscalation=false), unrestricted capabilities (container "web" must set '
    'securityContext.capabilities.drop=["ALL"]), runAsNonRoot != true (pod or container "web" must set '
    'securityContext.runAsNonRoot=true), seccompProfile (pod or container "web" must set '
    'securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")')


def test_a_pod_that_fails_the_audit_level_is_created_and_its_violations_are_in_the_log(h):
    enable(h)
    r = h("run web --image=nginx -n psa-audit")
    assert (r.code, r.out, r.err) == (0, "pod/web created\n", "")  # audit neither refuses nor warns
    evs = events(h)
    uri = "/api/v1/namespaces/psa-audit/pods?fieldManager=kubectl-run"
    assert [(e["stage"], e["verb"], e["requestURI"]) for e in evs] == [
        ("RequestReceived", "create", uri), ("ResponseComplete", "create", uri)]
    received, complete = evs
    assert received["auditID"] == complete["auditID"]
    assert "annotations" not in received and "responseStatus" not in received
    assert received["objectRef"] == {"resource": "pods", "namespace": "psa-audit", "apiVersion": "v1"}
    assert complete == {
        "kind": "Event", "apiVersion": "audit.k8s.io/v1", "level": "Metadata", "auditID": complete["auditID"],
        "stage": "ResponseComplete", "requestURI": uri, "verb": "create",
        "user": ADMIN, "sourceIPs": ["172.30.1.2"], "userAgent": "kubectl/v1.36.4 (linux/amd64) kubernetes/bb826b1",
        "objectRef": {"resource": "pods", "namespace": "psa-audit", "name": "web", "apiVersion": "v1"},
        "responseStatus": {"metadata": {}, "code": 201},
        "requestReceivedTimestamp": "2026-11-22T10:00:00.000000Z", "stageTimestamp": "2026-11-22T10:00:00.000000Z",
        "annotations": {**ALLOWED, "pod-security.kubernetes.io/audit-violations": RESTRICTED_WEB,
                        "pod-security.kubernetes.io/enforce-policy": "privileged:latest"}}
    assert list(complete) == ["kind", "apiVersion", "level", "auditID", "stage", "requestURI", "verb", "user",
                              "sourceIPs", "userAgent", "objectRef", "responseStatus", "requestReceivedTimestamp",
                              "stageTimestamp", "annotations"]  # audit.k8s.io/v1 Event's field order
    line = open(node(h, "var/log/kubernetes/audit/audit.log")).read().splitlines()[1]
    assert line.startswith('{"kind":"Event","apiVersion":"audit.k8s.io/v1","level":"Metadata","auditID":')


def test_a_refused_pod_is_logged_with_its_failure_and_the_policy_it_broke(h):
    assert h("label ns psa-audit pod-security.kubernetes.io/enforce=baseline").code == 0
    enable(h)
    pod = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p, namespace: psa-audit}\nspec:\n  containers:\n"
           "  - {name: c, image: nginx, securityContext: {privileged: true}}\n")
    r = h("create -f -", stdin=pod)
    assert r.code == 1
    e = events(h)[-1]
    assert e["responseStatus"] == {
        "metadata": {}, "status": "Failure",
        "message": 'pods "p" is forbidden: violates PodSecurity "baseline:latest": privileged (container "c" must '
                   "not set securityContext.privileged=true)",
        "reason": "Forbidden", "details": {"name": "p", "kind": "pods"}, "code": 403}
    assert e["annotations"]["pod-security.kubernetes.io/enforce-policy"] == "baseline:latest"
    assert e["annotations"]["pod-security.kubernetes.io/audit-violations"].startswith(
        'would violate PodSecurity "restricted:latest": privileged (container "c" must not set '
        "securityContext.privileged=true), allowPrivilegeEscalation != false")
    assert h("get pods -n psa-audit").err == "No resources found in psa-audit namespace.\n"


def test_a_privileged_namespace_records_the_policy_it_enforced(h):
    enable(h, POLICY.replace('namespaces: ["psa-audit"]', 'namespaces: ["psa-audit", "default"]'))
    assert h("run web --image=nginx").code == 0
    e = events(h)[-1]
    assert e["annotations"] == {**ALLOWED, "pod-security.kubernetes.io/enforce-policy": "privileged:latest"}


def test_request_response_level_records_the_objects_and_none_records_nothing(h):
    enable(h)
    assert h("create configmap cfg --from-literal=a=b -n psa-audit").code == 0
    assert h("get configmap cfg -n psa-audit -o name").code == 0
    assert h("get pods -A").code == 0  # no rule: level None
    evs = [e for e in events(h) if e["stage"] == "ResponseComplete"]
    assert [(e["verb"], e["level"], e["requestURI"]) for e in evs] == [
        ("create", "RequestResponse", "/api/v1/namespaces/psa-audit/configmaps?fieldManager=kubectl-create&"
                                      "fieldValidation=Strict"),
        ("get", "RequestResponse", "/api/v1/namespaces/psa-audit/configmaps/cfg")]
    create, get = evs
    assert create["requestObject"]["data"] == {"a": "b"} and "uid" not in create["requestObject"]["metadata"]
    assert create["responseObject"]["metadata"]["uid"] and "requestObject" not in get
    assert get["responseObject"]["data"] == {"a": "b"}


def test_a_list_at_request_response_level_records_every_item(h):
    """What CKS material warns about: a Secret rule at RequestResponse logs each secret's data
    on every list."""
    enable(h, "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n"
              "- level: RequestResponse\n  resources:\n  - group: \"\"\n    resources: [secrets]\n")
    assert h("create secret generic db --from-literal=pass=s3cret -n psa-audit").code == 0
    assert h("get secrets -n psa-audit").code == 0
    listed = events(h)[-1]
    assert (listed["verb"], listed["requestURI"]) == ("list", "/api/v1/namespaces/psa-audit/secrets?limit=500")
    body = listed["responseObject"]
    assert (body["kind"], body["apiVersion"], body["metadata"]["resourceVersion"].isdigit()) == ("SecretList", "v1", True)
    assert [(i["metadata"]["name"], i["data"], "kind" in i) for i in body["items"]] == [("db", {"pass": "czNjcmV0"}, False)]


def test_a_policy_that_omits_a_stage_and_managed_fields(h):
    enable(h, "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nomitManagedFields: true\n"
              "rules:\n- level: RequestResponse\n  verbs: [create]\n  namespaces: [psa-audit]\n")
    assert h("create configmap cfg --from-literal=a=b -n psa-audit").code == 0
    (e,) = events(h)
    assert e["stage"] == "ResponseComplete" and "managedFields" not in e["responseObject"]["metadata"]


def test_an_impersonated_user_refused_by_rbac_is_logged_as_forbidden(h):
    enable(h)
    r = h("get pods -n psa-audit --as=jane")
    assert r.code == 1
    e = events(h)[-1]
    assert e["user"] == ADMIN and e["impersonatedUser"] == {"username": "jane", "groups": ["system:authenticated"]}
    assert e["annotations"] == {"authorization.k8s.io/decision": "forbid", "authorization.k8s.io/reason": ""}
    assert e["responseStatus"]["code"] == 403


def test_without_the_flags_or_without_a_mount_for_the_log_nothing_reaches_the_node(h):
    assert h("run web --image=nginx -n psa-audit").code == 0
    assert not os.path.exists(node(h, "var"))
    enable(h, mount_log=False)  # the log is written inside the container, lost with it
    assert h("run web2 --image=nginx -n psa-audit").code == 0
    assert not os.path.exists(node(h, "var"))


REFUSED = "The connection to the server 172.30.1.2:6443 was refused - did you specify the right host or port?\n"


@pytest.mark.parametrize("policy, err", [
    (None, 'loading audit policy file: failed to read file path \\"/etc/kubernetes/audit/policy.yaml\\": open '
           '/etc/kubernetes/audit/policy.yaml: no such file or directory'),
    ("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metdata\n",
     'loading audit policy file: rules[0].level: Unsupported value: \\"Metdata\\": supported values: \\"None\\", '
     '\\"Metadata\\", \\"Request\\", \\"RequestResponse\\": from file /etc/kubernetes/audit/policy.yaml'),
    ("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules: []\n",
     "loading audit policy file: loaded illegal policy with 0 rules: from file /etc/kubernetes/audit/policy.yaml"),
], ids=["no policy file on the node", "an unknown level", "no rules"])
def test_a_policy_that_does_not_load_stops_the_api_server_until_it_is_fixed(h, policy, err):
    enable(h, policy)
    r = h("get ns psa-audit")
    assert (r.code, r.out) == (1, "")
    assert r.err == f'E1122 10:00:00.000000       1 run.go:72] "command failed" err="{err}"\n' + REFUSED
    os.makedirs(node(h, "etc/kubernetes/audit"), exist_ok=True)
    with open(node(h, "etc/kubernetes/audit/policy.yaml"), "w") as f:
        f.write(POLICY)
    assert h("get ns psa-audit -o name").out == "namespace/psa-audit\n"


def test_the_policy_must_be_on_a_mounted_path_for_the_server_to_read_it(h):
    enable(h, policy_path="/etc/kubernetes/audit-policy.yaml")  # the mount is of .../audit/policy.yaml
    r = h("get ns")
    assert r.code == 1 and "open /etc/kubernetes/audit-policy.yaml: no such file or directory" in r.err


CM = "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cm1, namespace: psa-audit}\ndata: {a: %s}\n"


@pytest.mark.parametrize("command, stdin, requests", [
    ("label ns psa-audit a=b", "", [("get", "/api/v1/namespaces/psa-audit", 200),
                                    ("patch", "/api/v1/namespaces/psa-audit?fieldManager=kubectl-label", 200)]),
    ("apply -f -", CM % "b", [
        ("get", "/api/v1/namespaces/psa-audit/configmaps/cm1", 404),
        ("create", "/api/v1/namespaces/psa-audit/configmaps?fieldManager=kubectl-client-side-apply&"
                   "fieldValidation=Strict", 201)]),
    ("get pods -n psa-audit", "", [("list", "/api/v1/namespaces/psa-audit/pods?limit=500", 200)]),
    ("create cm cm2 --from-literal=x=y -n psa-audit", "", [
        ("create", "/api/v1/namespaces/psa-audit/configmaps?fieldManager=kubectl-create&fieldValidation=Strict", 201)]),
], ids=["label: GET then PATCH", "apply of a new object: GET 404 then POST", "get: a chunked LIST", "create"])
def test_each_command_records_the_requests_kubectl_makes(h, command, stdin, requests):
    """What kubectl 1.36 -v=6 showed against the oracle (its OpenAPI and discovery GETs aside)."""
    enable(h, "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n")
    assert h(command, stdin=stdin).code == 0
    assert [(e["verb"], e["requestURI"], e["responseStatus"]["code"]) for e in events(h)] == requests


def test_logs_exec_and_a_watch_record_what_kubectl_sends(h):
    """kubectl 1.36 -v=8 against the oracle: logs names the container, exec is a GET upgraded to a
    WebSocket with the command in the query, get -w lists then watches from the list's version
    (a watch's events: ResponseStarted, then ResponseComplete)."""
    assert h("run web --image=nginx -n psa-audit").code == 0
    assert h("advance 30s").code == 0
    enable(h, "apiVersion: audit.k8s.io/v1\nkind: Policy\nomitStages: [RequestReceived]\nrules:\n- level: Metadata\n")
    assert h("logs web -n psa-audit").code == 0
    assert h("exec web -n psa-audit -- ls /").code == 0
    assert h("get pods -n psa-audit -w --request-timeout=1s").code in (0, 1)
    got = [(e["verb"], e["requestURI"], e["stage"]) for e in events(h)]
    rv = got[-1][1].split("resourceVersion=")[1].split("&")[0]
    assert rv.isdigit()
    pod = "/api/v1/namespaces/psa-audit/pods"
    assert got[:4] == [
        ("get", f"{pod}/web", "ResponseComplete"), ("get", f"{pod}/web/log?container=web", "ResponseComplete"),
        ("get", f"{pod}/web", "ResponseComplete"),
        ("get", f"{pod}/web/exec?command=ls&command=%2F&container=web&stderr=true&stdout=true", "ResponseComplete")]
    assert got[4:] == [("list", f"{pod}?limit=500", "ResponseComplete"),
                       ("watch", f"{pod}?resourceVersion={rv}&watch=true", "ResponseStarted"),
                       ("watch", f"{pod}?resourceVersion={rv}&watch=true", "ResponseComplete")]


def test_a_namespace_s_own_requests_are_in_that_namespace(h):
    """RequestInfo: /api/v1/namespaces/{name} is a request in namespace {name}, so a rule for
    that namespace logs its label patch (and its objectRef names it); creating it is not."""
    enable(h, "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n  namespaces: [psa-audit, later]\n")
    assert h("label ns psa-audit a=b").code == 0
    assert h("create ns later").code == 0
    got = [(e["verb"], e["requestURI"], e["objectRef"]["namespace"]) for e in events(h) if e["stage"] == "ResponseComplete"]
    assert got == [("get", "/api/v1/namespaces/psa-audit", "psa-audit"),
                   ("patch", "/api/v1/namespaces/psa-audit?fieldManager=kubectl-label", "psa-audit")]
