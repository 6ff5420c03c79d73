"""PodSecurity: the Pod Security Standards a namespace's labels ask for, enforced on pods and
warned about on pods and their controllers' templates.

Upstream: staging/src/k8s.io/pod-security-admission/admission/admission.go (``ValidatePod``,
``ValidatePodController``, ``ValidateNamespace``, ``EvaluatePod``, ``EvaluatePodsInNamespace``),
api/helpers.go (``PolicyToEvaluate``: the labels ``pod-security.kubernetes.io/enforce|warn|audit``
and their ``-version``; an unset warn level follows a stricter enforce level), admission/
podspec.go (``DefaultPodSpecExtractor``: the templates of the controllers) and
plugin/pkg/admission/security/podsecurity/admission.go (the built-in plugin, validating only;
no exemptions by default). The checks are ``podsecuritypolicy``.

- a pod create (or an update changing an image or the containers) in a namespace whose
  ``enforce`` level it fails is refused: ``pods "x" is forbidden: violates PodSecurity
  "restricted:latest": ...``; one it passes but fails the ``warn`` level gets ``Warning: would
  violate PodSecurity "restricted:latest": ...``;
- a Deployment, ReplicaSet, StatefulSet, DaemonSet, Job, CronJob, ReplicationController or
  PodTemplate gets the warning only;
- a namespace update making ``enforce`` stricter lists the existing pods that fail it.

The ``audit`` level (and the policy enforced, ``enforce-policy``, or the namespace labels'
parse error, ``error``) are audit annotations of the request (``pod-security.kubernetes.io/
audit-violations`` ...), in its events of the audit log when the API server keeps one
(kubesim.apiserver.audit). As upstream: a namespace whose pod-security labels do not parse is refused (``Invalid``) on create and on
an update that changes the errors, and such labels are read as upstream reads them (enforce:
restricted; warn and audit: privileged).
"""

from __future__ import annotations

from kubesim.apiserver.admission.interfaces import (
    CREATE,
    UPDATE,
    Attributes,
    ValidationPlugin,
    forbidden,
)

PREFIX = "pod-security.kubernetes.io/"
_TEMPLATE_KINDS = {"Deployment", "ReplicaSet", "StatefulSet", "DaemonSet", "Job",
                   "ReplicationController"}


def _parse_version(v: str) -> tuple[str, bool]:
    """ParseVersion: ``latest`` or ``v1.x`` (anything else: latest, and an error)."""
    if v == "latest":
        return "latest", True
    if v.startswith("v1.") and v[3:].isdigit() and (v[3:] == "0" or not v[3:].startswith("0")):
        return v, True
    return "latest", False


def policy_to_evaluate(labels: dict | None) -> dict[str, tuple[str, str]]:
    """api.PolicyToEvaluate with the default policy privileged:latest for every mode:
    mode -> (level, version)."""
    from kubesim.apiserver.admission.podsecuritypolicy import LEVELS

    labels = labels or {}
    p = {m: ["privileged", "latest"] for m in ("enforce", "audit", "warn")}
    has_enforce = False
    for mode in ("enforce", "audit", "warn"):
        if PREFIX + mode in labels:
            level = labels[PREFIX + mode]
            if level in LEVELS:
                p[mode][0] = level
                has_enforce = has_enforce or mode == "enforce"
            else:
                p[mode][0] = "restricted" if mode == "enforce" else "privileged"
        if PREFIX + mode + "-version" in labels:
            p[mode][1] = _parse_version(labels[PREFIX + mode + "-version"])[0]
    if (PREFIX + "warn" not in labels and has_enforce
            and LEVELS.index(p["enforce"][0]) > LEVELS.index(p["warn"][0])):
        p["warn"][0] = p["enforce"][0]
        if PREFIX + "warn-version" not in labels:
            p["warn"][1] = p["enforce"][1]
    return {m: (lv[0], lv[1]) for m, lv in p.items()}


def policy_errors(labels: dict | None) -> list:
    """PolicyToEvaluate's field errors: each pod-security label whose value does not parse, in
    the order it reads them (appendErr: ``metadata.labels[<label>]: Invalid value``)."""
    from kubesim.apiserver.admission.podsecuritypolicy import LEVELS
    from kubesim.errors import invalid

    labels = labels or {}
    errs = []
    for mode in ("enforce", "audit", "warn"):
        key = PREFIX + mode
        if key in labels and labels[key] not in LEVELS:
            errs.append(invalid(f"metadata.labels[{key}]", labels[key], "must be one of " + ", ".join(LEVELS)))
        if key + "-version" in labels and not _parse_version(labels[key + "-version"])[1]:
            errs.append(invalid(f"metadata.labels[{key}-version]", labels[key + "-version"],
                                'must be "latest" or "v1.x"'))
    return errs


def _lv(level_version: tuple[str, str]) -> str:
    return f"{level_version[0]}:{level_version[1]}"


def extract_pod_spec(obj: dict) -> tuple[dict, dict] | None:
    """DefaultPodSpecExtractor: (metadata, spec) of a pod or a controller's template."""
    kind = obj.get("kind")
    if kind == "Pod":
        return obj.get("metadata") or {}, obj.get("spec") or {}
    if kind in _TEMPLATE_KINDS:
        t = (obj.get("spec") or {}).get("template")
    elif kind == "CronJob":
        t = (((obj.get("spec") or {}).get("jobTemplate") or {}).get("spec") or {}).get("template")
    elif kind == "PodTemplate":
        t = obj.get("template")
    else:
        return None
    if t is None:
        return None
    return t.get("metadata") or {}, t.get("spec") or {}


def _significant_update(pod: dict, old: dict) -> bool:
    """isSignificantPodUpdate: containers added or removed, or an image changed."""
    new_s, old_s = pod.get("spec") or {}, old.get("spec") or {}
    for key in ("containers", "initContainers"):
        a, b = new_s.get(key) or [], old_s.get(key) or []
        if len(a) != len(b) or any(x.get("image") != y.get("image") for x, y in zip(a, b)):
            return True
    olds = {c.get("name"): c for c in old_s.get("ephemeralContainers") or ()}
    for c in new_s.get("ephemeralContainers") or ():
        o = olds.get(c.get("name"))
        if o is None or o.get("image") != c.get("image"):
            return True
    return False


class PodSecurity(ValidationPlugin):
    name = "PodSecurity"

    def validate(self, a: Attributes) -> None:
        if a.lister is None or a.operation not in (CREATE, UPDATE):
            return
        kind = a.kind
        if kind == "Namespace":
            labels = (a.obj.get("metadata") or {}).get("labels")
            errs = policy_errors(labels) if any(k.startswith(PREFIX) for k in labels or ()) else []
            if errs and (a.operation == CREATE or a.old is None
                         or errs != policy_errors((a.old.get("metadata") or {}).get("labels"))):
                from kubesim.errors import Invalid

                raise Invalid("Namespace", a.name, errs)
            if a.operation == UPDATE and a.old is not None:
                self._validate_namespace(a)
            return
        if kind != "Pod" and kind not in _TEMPLATE_KINDS and kind not in ("CronJob", "PodTemplate"):
            return
        ns_name = (a.obj.get("metadata") or {}).get("namespace") or ""
        ns = next((n for n in a.lister("Namespace") if n["metadata"]["name"] == ns_name), None)
        if ns is None:
            return
        labels = (ns.get("metadata") or {}).get("labels")
        policy = policy_to_evaluate(labels)
        errs = policy_errors(labels) if any(k.startswith(PREFIX) for k in labels or ()) else []
        is_pod = kind == "Pod"
        if is_pod:
            if not errs and all(policy[m][0] == "privileged" for m in policy):
                # sharedAllowedPrivilegedResponse
                self._annotate(a, {"enforce-policy": "privileged:latest"})
                return
            if a.operation == UPDATE and a.old is not None and not _significant_update(a.obj, a.old):
                return
        elif not errs and policy["warn"][0] == "privileged" and policy["audit"][0] == "privileged":
            return
        extracted = extract_pod_spec(a.obj)
        if extracted is None:
            return
        self._evaluate(a, policy, errs, *extracted, enforce=is_pod)

    @staticmethod
    def _annotate(a: Attributes, annotations: dict[str, str]) -> None:
        """The plugin's audit annotations, each key under ``pod-security.kubernetes.io/``."""
        if a.audit_annotations is not None:
            a.audit_annotations.update({PREFIX + k: v for k, v in annotations.items()})

    def _evaluate(self, a: Attributes, policy, errs: list, meta: dict, spec: dict, enforce: bool) -> None:
        """EvaluatePod: the enforce level refuses (a pod only), the audit level annotates the
        request's audit event, the warn level warns (unless refused)."""
        from kubesim.apiserver.admission import podsecuritypolicy as psp

        annotations: dict[str, str] = {}
        if errs:
            msgs: list[str] = []
            for e in errs:
                if str(e) not in msgs:
                    msgs.append(str(e))
            annotations["error"] = "Failed to parse policy: " + (msgs[0] if len(msgs) == 1 else "[" + ", ".join(msgs) + "]")
        cached: dict[tuple[str, str], list] = {}
        refusal = None
        if enforce:
            annotations["enforce-policy"] = _lv(policy["enforce"])
            result = cached[policy["enforce"]] = psp.evaluate(policy["enforce"][0], meta, spec, policy["enforce"][1])
            if result:
                refusal = forbidden(a, f'violates PodSecurity "{_lv(policy["enforce"])}": {psp.forbidden_detail(result)}')
        audit = policy["audit"]
        if audit not in cached:
            cached[audit] = psp.evaluate(audit[0], meta, spec, audit[1])
        if cached[audit]:
            annotations["audit-violations"] = (f'would violate PodSecurity "{_lv(audit)}": '
                                               f'{psp.forbidden_detail(cached[audit])}')
        self._annotate(a, annotations)
        if refusal is not None:
            raise refusal
        warn = policy["warn"]
        result = cached[warn] if warn in cached else psp.evaluate(warn[0], meta, spec, warn[1])
        if result and a.warnings is not None:
            a.warnings.append(f'would violate PodSecurity "{_lv(warn)}": {psp.forbidden_detail(result)}')

    def _validate_namespace(self, a: Attributes) -> None:
        """ValidateNamespace's update: a stricter enforce level is dry-run against the pods."""
        from kubesim.apiserver.admission import podsecuritypolicy as psp

        new = policy_to_evaluate((a.obj.get("metadata") or {}).get("labels"))["enforce"]
        old = policy_to_evaluate((a.old.get("metadata") or {}).get("labels"))["enforce"]
        if new == old or new[0] == "privileged":
            return
        if new[1] == old[1] and psp.LEVELS.index(new[0]) <= psp.LEVELS.index(old[0]):
            return
        ns = a.name
        pods = sorted((p for p in a.lister("Pod") if p["metadata"].get("namespace") == ns),
                      key=lambda p: p["metadata"]["name"])
        pods = _prioritize(pods)
        first: dict[str, list] = {}
        order: list[str] = []
        for pod in pods:
            result = psp.evaluate(new[0], pod.get("metadata") or {}, pod.get("spec") or {}, new[1])
            if not result:
                continue
            w = psp.forbidden_reason(result)
            name = pod["metadata"]["name"]
            if w not in first:
                first[w] = [name, 0]
                order.append(w)
            elif name < first[w][0]:
                first[w][0] = name
            first[w][1] += 1
        if not order or a.warnings is None:
            return
        a.warnings.append(f'existing pods in namespace "{ns}" violate the new PodSecurity enforce level "{_lv(new)}"')
        out = []
        for w in order:
            name, count = first[w]
            if count == 1:
                out.append(f"{name}: {w}")
            elif count == 2:
                out.append(f"{name} (and 1 other pod): {w}")
            else:
                out.append(f"{name} (and {count - 1} other pods): {w}")
        a.warnings.extend(sorted(out))


def _prioritize(pods: list[dict]) -> list[dict]:
    """prioritizePods: one pod per controller first, the other replicas after."""
    first, dup, seen = [], [], set()
    for p in pods:
        ref = next((r for r in p["metadata"].get("ownerReferences") or () if r.get("controller")), None)
        if ref is None:
            first.append(p)
        elif ref.get("uid") in seen:
            dup.append(p)
        else:
            seen.add(ref.get("uid"))
            first.append(p)
    return first + dup
