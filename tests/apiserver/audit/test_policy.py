"""The audit policy: rule matching and omitted stages as
staging/src/k8s.io/apiserver/pkg/audit/policy/checker_test.go tables them (the same requests,
rules and expected levels), validation as pkg/apis/audit/validation/validation_test.go, and the
texts the kube-apiserver stops with (reader.go)."""

from __future__ import annotations

import pytest

from kubesim.apiserver.audit import policy as P
from kubesim.apiserver.authorization import Attributes, UserInfo

TIM = UserInfo("tim@k8s.io", ("humans", "developers"))
REQUESTS = {
    "namespaced": Attributes(TIM, "get", True, "", "pods", "", "default", "busybox"),
    "cluster": Attributes(TIM, "get", True, "rbac.authorization.k8s.io", "clusterroles", "", "", "edit"),
    "nonResource": Attributes(TIM, "get", False, path="/logs/kubelet.log"),
    "subresource": Attributes(TIM, "get", True, "", "pods", "log", "default", "busybox"),
    "Unauthorized": Attributes(UserInfo(""), "get", True, "", "pods", "", "default", "busybox"),
}
RULES = {
    "default": {"level": "Metadata"},
    "create": {"level": "Request", "verbs": ["create"]},
    "tims": {"level": "Metadata", "users": ["tim@k8s.io"]},
    "humans": {"level": "Metadata", "userGroups": ["humans"]},
    "serviceAccounts": {"level": "Request", "userGroups": ["system:serviceaccounts"]},
    "getPods": {"level": "RequestResponse", "verbs": ["get"], "resources": [{"resources": ["pods"]}]},
    "getPodLogs": {"level": "Request", "verbs": ["get"], "resources": [{"resources": ["pods/log"]}]},
    "getPodWildcardMatching": {"level": "Request", "verbs": ["get"], "resources": [{"resources": ["*"]}]},
    "getPodResourceWildcardMatching": {"level": "Request", "verbs": ["get"], "resources": [{"resources": ["*/log"]}]},
    "getPodSubResourceWildcardMatching": {"level": "Request", "verbs": ["get"],
                                          "resources": [{"resources": ["pods/*"]}]},
    "getClusterRoles": {"level": "RequestResponse", "verbs": ["get"], "namespaces": [""],
                        "resources": [{"group": "rbac.authorization.k8s.io", "resources": ["clusterroles"]}]},
    "getLogs": {"level": "RequestResponse", "verbs": ["get"], "nonResourceURLs": ["/logs*"]},
    "getMetrics": {"level": "Request", "verbs": ["get"], "nonResourceURLs": ["/metrics"]},
    "clusterRoleEdit": {"level": "Request", "resources": [{"group": "rbac.authorization.k8s.io",
                                                           "resources": ["clusterroles"], "resourceNames": ["edit"]}]},
    "omit RequestReceived": {"level": "Request", "omitStages": ["RequestReceived"]},
    "only audit panic": {"level": "Request", "omitStages": ["RequestReceived", "ResponseStarted", "ResponseComplete"]},
}

# testAuditLevel: (request, expected level, rules in order)
LEVELS = [
    ("namespaced", "Metadata", ["default"]), ("namespaced", "None", ["create"]),
    ("namespaced", "Metadata", ["tims"]), ("namespaced", "Metadata", ["humans"]),
    ("namespaced", "None", ["serviceAccounts"]), ("namespaced", "RequestResponse", ["getPods"]),
    ("namespaced", "None", ["getClusterRoles"]), ("namespaced", "None", ["getLogs"]),
    ("namespaced", "None", ["getMetrics"]), ("namespaced", "Metadata", ["getMetrics", "serviceAccounts", "default"]),
    ("namespaced", "RequestResponse", ["getMetrics", "getPods", "default"]),
    ("namespaced", "RequestResponse", ["getPodLogs", "getPods"]),
    ("cluster", "Metadata", ["default"]), ("cluster", "None", ["create"]), ("cluster", "Metadata", ["tims"]),
    ("cluster", "Metadata", ["humans"]), ("cluster", "None", ["serviceAccounts"]), ("cluster", "None", ["getPods"]),
    ("cluster", "RequestResponse", ["getClusterRoles"]), ("cluster", "Request", ["clusterRoleEdit", "getClusterRoles"]),
    ("cluster", "None", ["getLogs"]), ("cluster", "None", ["getMetrics"]),
    ("cluster", "Metadata", ["getMetrics", "serviceAccounts", "default"]),
    ("cluster", "RequestResponse", ["getMetrics", "getClusterRoles", "default"]),
    ("cluster", "None", ["getPodLogs", "getPods"]),
    ("nonResource", "Metadata", ["default"]), ("nonResource", "None", ["create"]),
    ("nonResource", "Metadata", ["tims"]), ("nonResource", "Metadata", ["humans"]),
    ("nonResource", "None", ["serviceAccounts"]), ("nonResource", "None", ["getPods"]),
    ("nonResource", "None", ["getClusterRoles"]), ("nonResource", "RequestResponse", ["getLogs"]),
    ("nonResource", "None", ["getMetrics"]), ("nonResource", "Metadata", ["getMetrics", "serviceAccounts", "default"]),
    ("nonResource", "RequestResponse", ["getLogs", "getClusterRoles", "default"]),
    ("nonResource", "None", ["getPodLogs", "getPods"]),
    ("subresource", "Request", ["getPodLogs", "getPods"]), ("subresource", "Request", ["getPodWildcardMatching"]),
    ("subresource", "Request", ["getPodResourceWildcardMatching"]),
    ("subresource", "Request", ["getPodSubResourceWildcardMatching"]),
    ("Unauthorized", "None", ["tims"]), ("Unauthorized", "Metadata", ["tims", "default"]),
    ("Unauthorized", "None", ["humans"]), ("Unauthorized", "Metadata", ["humans", "default"]),
]


@pytest.mark.parametrize("stages", [[], ["RequestReceived", "ResponseStarted"]],
                         ids=["TestChecker", "TestCheckerPolicyOmitStages"])
@pytest.mark.parametrize("req, level, rules", LEVELS, ids=[f"{r} with {'+'.join(rs)} is {lv}" for r, lv, rs in LEVELS])
def test_the_first_matching_rule_gives_the_level(req, level, rules, stages):
    pol = {"omitStages": stages, "rules": [RULES[r] for r in rules]}
    cfg = P.evaluate(pol, REQUESTS[req])
    assert cfg.level == level and cfg.omit_stages == frozenset(stages)


@pytest.mark.parametrize("policy_stages, req, rules, level, stages", [
    ([], "namespaced", ["omit RequestReceived", "getPods", "default"], "Request", {"RequestReceived"}),
    ([], "cluster", ["only audit panic", "getPods", "default"], "Request",
     {"RequestReceived", "ResponseStarted", "ResponseComplete"}),
    (["RequestReceived", "ResponseStarted"], "namespaced", ["omit RequestReceived", "getPods", "default"], "Request",
     {"RequestReceived", "ResponseStarted"}),
    (["RequestReceived", "ResponseStarted"], "nonResource", ["default", "omit RequestReceived", "getPods"], "Metadata",
     {"RequestReceived", "ResponseStarted"}),
    (["RequestReceived", "ResponseStarted"], "cluster", ["only audit panic", "getPods", "default"], "Request",
     {"RequestReceived", "ResponseStarted", "ResponseComplete"}),
], ids=["a rule's omitStages", "a rule omitting every stage but Panic", "the policy's and the rule's joined",
        "the policy's alone", "union with the policy's"])
def test_omitted_stages_are_the_rules_joined_with_the_policys(policy_stages, req, rules, level, stages):
    cfg = P.evaluate({"omitStages": policy_stages, "rules": [RULES[r] for r in rules]}, REQUESTS[req])
    assert (cfg.level, cfg.omit_stages) == (level, frozenset(stages))


@pytest.mark.parametrize("policy_value, rule_value, want", [
    (False, None, False), (True, None, True), (True, False, False), (False, True, True),
], ids=["neither", "the policy's", "the rule's false wins", "the rule's true wins"])
def test_omit_managed_fields_comes_from_the_rule_else_the_policy(policy_value, rule_value, want):
    rule = {"level": "Metadata", **({"omitManagedFields": rule_value} if rule_value is not None else {})}
    assert P.evaluate({"omitManagedFields": policy_value, "rules": [rule]}, REQUESTS["namespaced"]).omit_managed_fields is want


def test_no_matching_rule_is_level_none_with_the_policys_stages():
    cfg = P.evaluate({"omitStages": ["RequestReceived"], "rules": [RULES["create"]]}, REQUESTS["namespaced"])
    assert cfg == P.RequestAuditConfig("None", frozenset({"RequestReceived"}), False)


def _load(text: str) -> str:
    with pytest.raises(P.PolicyError) as e:
        P.load_policy_from_bytes(text)
    return str(e.value)


HEAD = "apiVersion: audit.k8s.io/v1\nkind: Policy\n"


@pytest.mark.parametrize("body, want", [
    ("rules:\n- level: Metdata\n",
     'rules[0].level: Unsupported value: "Metdata": supported values: "None", "Metadata", "Request", "RequestResponse"'),
    ("rules:\n- users: [a]\n", "rules[0].level: Required value"),
    ("rules:\n- level: Metadata\n  nonResourceURLs: [logs]\n",
     "rules[0].nonResourceURLs[0]: Invalid value: \"logs\": non-resource URL rules must begin with a '/' character"),
    ("rules:\n- level: Metadata\n  nonResourceURLs: ['/a*b']\n",
     "rules[0].nonResourceURLs[0]: Invalid value: \"/a*b\": non-resource URL wildcards '*' must be the final "
     "character of the rule"),
    ("rules:\n- level: Metadata\n  nonResourceURLs: [/metrics]\n  namespaces: [default]\n",
     'rules[0].nonResourceURLs: Invalid value: ["/metrics"]: rules cannot apply to both regular resources and '
     "non-resource URLs"),
    ("rules:\n- level: Metadata\n  resources:\n  - group: Apps_\n",
     'rules[0].resources.group: Invalid value: "Apps_": a lowercase RFC 1123 subdomain must consist of lower case '
     "alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. "
     "'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"),
    ("rules:\n- level: Metadata\n  resources:\n  - resourceNames: [x]\n",
     'rules[0].resources.resourceNames: Invalid value: ["x"]: using resourceNames requires at least one resource'),
    ("omitStages: [Done]\nrules:\n- level: None\n",
     'omitStages[0]: Invalid value: "Done": allowed stages are RequestReceived,ResponseStarted,ResponseComplete,Panic'),
    ("rules:\n- level: Foo\n- level: None\n  omitStages: [X]\n",
     '[rules[0].level: Unsupported value: "Foo": supported values: "None", "Metadata", "Request", "RequestResponse", '
     'rules[1].omitStages[0]: Invalid value: "X": allowed stages are RequestReceived,ResponseStarted,'
     'ResponseComplete,Panic]'),
    ("rules: []\n", "loaded illegal policy with 0 rules"),
], ids=["an unknown level", "no level", "a URL without its slash", "a wildcard not last",
        "a rule for both resources and URLs", "a group that is not a DNS subdomain", "resourceNames without resources",
        "an unknown stage to omit", "several errors, in brackets", "no rules"])
def test_a_policy_the_kube_apiserver_refuses_reads_as_its_error(body, want):
    assert _load(HEAD + body) == want


def test_a_policy_of_another_version_is_not_decoded():
    assert _load("apiVersion: audit.k8s.io/v2\nkind: Policy\nrules: []\n") == (
        'failed decoding: no kind "Policy" is registered for version "audit.k8s.io/v2" in scheme '
        '"k8s.io/apiserver/pkg/audit/scheme.go:30"')


@pytest.mark.parametrize("text, want", [
    ("kind: Policy\nrules: []\n", "failed decoding: Object 'apiVersion' is missing in 'kind: Policy\nrules: []\n'"),
    ("apiVersion: audit.k8s.io/v1\nrules: []\n",
     "failed decoding: Object 'Kind' is missing in 'apiVersion: audit.k8s.io/v1\nrules: []\n'"),
    ("apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: [\n",
     "failed decoding: error converting YAML to JSON: yaml: line 5: did not find expected node content"),
], ids=["no apiVersion: the file's text is quoted", "no kind", "not YAML"])
def test_a_file_that_does_not_decode(text, want):
    assert _load(text) == want


def test_unknown_fields_are_accepted_as_the_lenient_decoder_accepts_them():
    assert P.load_policy_from_bytes(HEAD + "rules:\n- level: Metadata\n  colour: blue\n")["rules"][0]["level"] == "Metadata"


def test_a_missing_file_names_the_path_the_server_was_given(tmp_path):
    with pytest.raises(P.PolicyError) as e:
        P.load_policy_from_file("/etc/kubernetes/audit/policy.yaml", str(tmp_path / "nothing"))
    assert str(e.value) == ('failed to read file path "/etc/kubernetes/audit/policy.yaml": '
                            "open /etc/kubernetes/audit/policy.yaml: no such file or directory")
    f = tmp_path / "p.yaml"
    f.write_text(HEAD + "rules: []\n")
    with pytest.raises(P.PolicyError) as e:
        P.load_policy_from_file("/etc/p.yaml", str(f))
    assert str(e.value) == "loaded illegal policy with 0 rules: from file /etc/p.yaml"
