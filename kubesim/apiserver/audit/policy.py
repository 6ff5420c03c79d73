"""An audit Policy: read from its file, validated, and evaluated against a request.

Upstream: staging/src/k8s.io/apiserver/pkg/audit/policy/reader.go (``LoadPolicyFromFile``,
``LoadPolicyFromBytes``: audit.k8s.io/v1 only here, unknown fields accepted as the lenient
decoder accepts them, ``loaded illegal policy with 0 rules``), checker.go (``EvaluatePolicyRule``:
the first matching rule's level, its omitStages joined with the policy's, omitManagedFields
from the rule else the policy; no rule: level None; ``ruleMatches``, ``ruleMatchesResource``,
``ruleMatchesNonResource``, ``pathMatches``) and pkg/apis/audit/validation/validation.go
(``ValidatePolicy``). Errors read as the kube-apiserver prints them when it refuses to start
(``loading audit policy file: ...``, pkg/server/options/audit.go).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from kubesim.api.record import FrozenRecord

if TYPE_CHECKING:  # the request as authorization sees it (authorizer.Attributes), as upstream's checker reads it
    from kubesim.apiserver.authorization import Attributes

NONE, METADATA, REQUEST, REQUEST_RESPONSE = "None", "Metadata", "Request", "RequestResponse"
LEVELS = (NONE, METADATA, REQUEST, REQUEST_RESPONSE)
REQUEST_RECEIVED, RESPONSE_STARTED, RESPONSE_COMPLETE, PANIC = (
    "RequestReceived", "ResponseStarted", "ResponseComplete", "Panic")
STAGES = (REQUEST_RECEIVED, RESPONSE_STARTED, RESPONSE_COMPLETE, PANIC)
GROUP_VERSION = "audit.k8s.io/v1"


class PolicyError(ValueError):
    """A policy the kube-apiserver refuses; ``str()`` is its error text (without the
    ``loading audit policy file: `` the options add)."""


def level_less(a: str, b: str) -> bool:
    """audit.Level.Less."""
    return LEVELS.index(a) < LEVELS.index(b)


class RequestAuditConfig(FrozenRecord):
    """What the policy says of one request."""

    __slots__ = ("level", "omit_managed_fields", "omit_stages")

    def __init__(self, level: str = NONE, omit_stages: frozenset = frozenset(), omit_managed_fields: bool = False):
        self.level = level
        self.omit_stages = omit_stages
        self.omit_managed_fields = omit_managed_fields


# -- reading and validation ---------------------------------------------------------------

def _list(v) -> list:
    return v if isinstance(v, list) else []


def validate_policy(policy: dict) -> list:
    """ValidatePolicy: the field errors of a decoded Policy."""
    from kubesim.api.gojson import GoJSON
    from kubesim.api.meta.validation import is_dns1123_subdomain
    from kubesim.errors import invalid, required, unsupported

    def omit_stages(stages, path):
        return [invalid(f"{path}[{i}]", s, "allowed stages are " + ",".join(STAGES))
                for i, s in enumerate(_list(stages)) if s not in STAGES]

    errs = omit_stages(policy.get("omitStages"), "omitStages")
    for i, rule in enumerate(_list(policy.get("rules"))):
        rule = rule if isinstance(rule, dict) else {}
        path = f"rules[{i}]"
        level = rule.get("level") or ""
        if level == "":
            errs.append(required(f"{path}.level"))
        elif level not in LEVELS:
            errs.append(unsupported(f"{path}.level", level, list(LEVELS)))
        urls = _list(rule.get("nonResourceURLs"))
        for j, url in enumerate(urls):
            if url == "*":
                continue
            if not url.startswith("/"):
                errs.append(invalid(f"{path}.nonResourceURLs[{j}]", url,
                                    "non-resource URL rules must begin with a '/' character"))
            if url and "*" in url[:-1]:
                errs.append(invalid(f"{path}.nonResourceURLs[{j}]", url,
                                    "non-resource URL wildcards '*' must be the final character of the rule"))
        for gr in _list(rule.get("resources")):
            gr = gr if isinstance(gr, dict) else {}
            group = gr.get("group") or ""
            if group:
                msgs = is_dns1123_subdomain(group)
                if msgs:
                    errs.append(invalid(f"{path}.resources.group", group, ",".join(msgs)))
            if _list(gr.get("resourceNames")) and not _list(gr.get("resources")):
                errs.append(invalid(f"{path}.resources.resourceNames", GoJSON(gr["resourceNames"]),
                                    "using resourceNames requires at least one resource"))
        errs += omit_stages(rule.get("omitStages"), f"{path}.omitStages")
        if urls and (_list(rule.get("resources")) or _list(rule.get("namespaces"))):
            errs.append(invalid(f"{path}.nonResourceURLs", GoJSON(urls),
                                "rules cannot apply to both regular resources and non-resource URLs"))
    return errs


def _aggregate(errs: list) -> str:
    """field.ErrorList.ToAggregate().Error(): one error as it is, several in brackets."""
    msgs: list[str] = []
    for e in errs:
        if str(e) not in msgs:
            msgs.append(str(e))
    return msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]"


def load_policy_from_bytes(text: str, source: str = "") -> dict:
    """LoadPolicyFromBytes: the Policy; PolicyError with upstream's text."""
    from kubesim.codec.load import decode_yaml
    from kubesim.errors import ParseError

    try:
        docs = decode_yaml(source, text)
    except ParseError as e:
        raise PolicyError(f"failed decoding: error converting YAML to JSON: {e.detail}") from None
    doc = docs[0] if docs else None
    if not isinstance(doc, dict):
        raise PolicyError("failed decoding: Object 'Kind' is missing in '" + text + "'")
    kind, api_version = doc.get("kind") or "", doc.get("apiVersion") or ""
    if not kind:
        raise PolicyError("failed decoding: Object 'Kind' is missing in '" + text + "'")
    if api_version != GROUP_VERSION or kind != "Policy":
        raise PolicyError(f'failed decoding: no kind "{kind}" is registered for version "{api_version}" '
                          'in scheme "k8s.io/apiserver/pkg/audit/scheme.go:30"' if api_version else
                          f"failed decoding: Object 'apiVersion' is missing in '{text}'")
    errs = validate_policy(doc)
    if errs:
        raise PolicyError(_aggregate(errs))
    if not _list(doc.get("rules")):
        raise PolicyError("loaded illegal policy with 0 rules")
    return doc


def load_policy_from_file(path: str, host_path: str | None) -> dict:
    """LoadPolicyFromFile: ``path`` as the kube-apiserver names it, read at ``host_path`` (None:
    not on any volume the container mounts, so not there for it)."""
    if not path:
        raise PolicyError("file path not specified")
    try:
        if host_path is None:
            raise FileNotFoundError
        with open(host_path, encoding="utf-8", errors="replace") as f:
            text = f.read()
    except FileNotFoundError:
        raise PolicyError(f'failed to read file path "{path}": open {path}: no such file or directory') from None
    except IsADirectoryError:
        raise PolicyError(f'failed to read file path "{path}": read {path}: is a directory') from None
    try:
        return load_policy_from_bytes(text, path)
    except PolicyError as e:
        raise PolicyError(f"{e}: from file {path}") from None


# -- evaluation ---------------------------------------------------------------------------

def _matches_resource(rule: dict, r: Attributes) -> bool:
    """ruleMatchesResource."""
    if not r.resource_request:
        return False
    namespaces = _list(rule.get("namespaces"))
    if namespaces and r.namespace not in namespaces:
        return False
    resources = _list(rule.get("resources"))
    if not resources:
        return True
    combined = f"{r.resource}/{r.subresource}" if r.subresource else r.resource
    for gr in resources:
        if (gr.get("group") or "") != r.api_group:
            continue
        names = _list(gr.get("resources"))
        if not names:
            return True
        resource_names = _list(gr.get("resourceNames"))
        for res in names:
            if resource_names and r.name not in resource_names:
                continue
            if res == combined or res == "*":
                return True
            if r.subresource and res.startswith("*/") and r.subresource == res[2:]:
                return True
            if res.endswith("/*") and r.resource == res[:-2]:
                return True
    return False


def path_matches(path: str, spec: str) -> bool:
    """pathMatches."""
    return spec == "*" or spec == path or (spec.endswith("*") and path.startswith(spec.rstrip("*")))


def rule_matches(rule: dict, r: Attributes) -> bool:
    """ruleMatches."""
    users = _list(rule.get("users"))
    if users and r.user.name not in users:
        return False
    groups = _list(rule.get("userGroups"))
    if groups and not any(g in groups for g in r.user.groups):
        return False
    verbs = _list(rule.get("verbs"))
    if verbs and r.verb not in verbs:
        return False
    if _list(rule.get("namespaces")) or _list(rule.get("resources")):
        return _matches_resource(rule, r)
    urls = _list(rule.get("nonResourceURLs"))
    if urls:
        return not r.resource_request and any(path_matches(r.path, u) for u in urls)
    return True


def evaluate(policy: dict, r: Attributes) -> RequestAuditConfig:
    """EvaluatePolicyRule (the rules' omitStages joined with the policy's, as
    NewPolicyRuleEvaluator joins them)."""
    policy_omit = frozenset(_list(policy.get("omitStages")))
    policy_mf = bool(policy.get("omitManagedFields"))
    for rule in _list(policy.get("rules")):
        if rule_matches(rule, r):
            mf = rule.get("omitManagedFields")
            return RequestAuditConfig(rule["level"], policy_omit | frozenset(_list(rule.get("omitStages"))),
                                      policy_mf if mf is None else bool(mf))
    return RequestAuditConfig(NONE, policy_omit, policy_mf)
