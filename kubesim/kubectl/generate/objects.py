"""The generated objects, as dicts in Go struct field order with ``omitempty`` fields left out:
``create deployment|namespace|priorityclass|poddisruptionbudget`` and ``run``'s pod, with the
parsers their flags go through (labels, annotations, env, image references, label selectors).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/create/{create_deployment.go,create_namespace.go,
create_priorityclass.go,create_pdb.go}, pkg/generate/versioned/run.go (``run-pod/v1``),
pkg/generate/generate.go (ParseLabels), github.com/distribution/reference (ReferenceRegexp).
"""

from __future__ import annotations

import re

from kubesim.errors import UsageError

# github.com/distribution/reference's ReferenceRegexp, anchored
_ALNUM = r"[a-z0-9]+"


_SEP = r"(?:[._]|__|[-]+)"


_PATH_COMPONENT = _ALNUM + r"(?:" + _SEP + _ALNUM + r")*"


_DOMAIN_COMPONENT = r"(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])"


_HOST = r"(?:" + _DOMAIN_COMPONENT + r"(?:\." + _DOMAIN_COMPONENT + r")*|\[(?:[a-fA-F0-9:]+)\])"


_DOMAIN_AND_PORT = _HOST + r"(?::[0-9]+)?"


_NAME = r"(?:" + _DOMAIN_AND_PORT + r"/)?" + _PATH_COMPONENT + r"(?:/" + _PATH_COMPONENT + r")*"


_TAG = r"[\w][\w.-]{0,127}"


_DIGEST = r"[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}"
_REFERENCE: list = []


def is_image_reference(image: str) -> bool:
    """reference.ReferenceRegexp.MatchString (compiled on first use: it costs a millisecond)."""
    if not _REFERENCE:
        _REFERENCE.append(re.compile(r"(" + _NAME + r")(?::(" + _TAG + r"))?(?:@(" + _DIGEST + r"))?", re.ASCII))
    return _REFERENCE[0].fullmatch(image) is not None


_ENV_VAR_NAME = re.compile(r"[-._a-zA-Z][-._a-zA-Z0-9]*")


def parse_labels(spec: str) -> dict:
    """generate.ParseLabels: ``k=v,k2=v2``."""
    labels: dict[str, str] = {}
    for item in spec.split(","):
        parts = item.split("=")
        if len(parts) != 2:
            raise UsageError(f"unexpected label spec: {item}")
        if not parts[0]:
            raise UsageError("unexpected empty label key")
        labels[parts[0]] = parts[1]
    return dict(sorted(labels.items()))


def parse_annotations(items: list[str]) -> dict:
    out: dict[str, str] = {}
    for item in items:
        parts = item.split("=", 1)
        if len(parts) != 2 or not parts[0]:
            raise UsageError(f"invalid annotations format: {item}")
        out[parts[0]] = parts[1]
    return dict(sorted(out.items()))


def parse_envs(items: list[str]) -> list[dict]:
    envs = []
    for item in items:
        pos = item.find("=")
        if pos <= 0 or not _ENV_VAR_NAME.fullmatch(item[:pos]):
            raise UsageError(f"invalid env: {item}")
        env = {"name": item[:pos]}
        if item[pos + 1:]:
            env["value"] = item[pos + 1:]
        envs.append(env)
    return envs


def container_name(image: str, rng=None) -> str:
    """create deployment's buildPodSpec: the image's last path element, without tag or digest;
    with ``_`` or ``.`` in it, sanitised and given a random 5-character suffix."""
    name = image.split("/")[-1]
    if ":" in name:
        name = name.split(":")[0]
    if "@" in name:
        name = name.split("@")[0]
    if "_" in name or "." in name:
        from kubesim.api.names import random_string

        if rng is None:
            import random

            rng = random.Random()
        name = name.replace("_", "-").replace(".", "-") + "-" + random_string(rng)
    return name


def metadata(name: str, namespace: str | None = None, labels: dict | None = None,
          annotations: dict | None = None) -> dict:
    md: dict = {}
    if name:
        md["name"] = name
    if namespace:
        md["namespace"] = namespace
    if labels:
        md["labels"] = labels
    if annotations:
        md["annotations"] = annotations
    return md


def deployment(name: str, images: list[str], replicas: int = 1, port: int = -1, command: list[str] | None = None,
               namespace: str | None = None, rng=None) -> dict:
    """``kubectl create deployment``'s object (createDeployment)."""
    containers = []
    for i, image in enumerate(images):
        c: dict = {"name": container_name(image, rng)}
        if image:
            c["image"] = image
        if command:
            c["command"] = list(command)
        if i == 0 and port >= 0:
            c["ports"] = [{"containerPort": port}]
        c["resources"] = {}
        containers.append(c)
    return {
        "kind": "Deployment",
        "apiVersion": "apps/v1",
        "metadata": metadata(name, namespace, {"app": name}),
        "spec": {
            "replicas": replicas,
            "selector": {"matchLabels": {"app": name}},
            "template": {"metadata": {"labels": {"app": name}}, "spec": {"containers": containers}},
            "strategy": {},
        },
        "status": {},
    }


def namespace_object(name: str) -> dict:
    """``kubectl create namespace``'s object."""
    return {"kind": "Namespace", "apiVersion": "v1", "metadata": metadata(name), "spec": {}, "status": {}}


def priority_class(name: str, value: int = 0, global_default: bool = False, description: str = "",
                   preemption_policy: str = "PreemptLowerPriority") -> dict:
    """``kubectl create priorityclass``'s object."""
    pc: dict = {"kind": "PriorityClass", "apiVersion": "scheduling.k8s.io/v1", "metadata": metadata(name),
                "value": value}
    if global_default:
        pc["globalDefault"] = True
    if description:
        pc["description"] = description
    pc["preemptionPolicy"] = preemption_policy
    return pc


PDB_VALUE = re.compile(r"^[0-9]+%?$")


def parse_int_or_string(val: str):
    """intstr.Parse: an int32 when the text is one, else the string."""
    if re.fullmatch(r"[+-]?[0-9]+", val):
        n = int(val)
        if -2**31 <= n < 2**31:
            return n
    return val


def parse_to_label_selector(text: str) -> dict:
    """metav1.ParseToLabelSelector: ``=``/``==`` become matchLabels, the other operators
    matchExpressions (in key order, values sorted, as labels.Parse leaves them)."""
    from kubesim.api import selectors

    try:
        parsed = selectors.parse_label_selector(text)
    except ValueError as e:
        raise UsageError(f"couldn't parse the selector string \"{text}\": {e}") from None
    match_labels: dict = {}
    exprs: list = []
    ops = {"in": "In", "notin": "NotIn", "exists": "Exists", "!": "DoesNotExist"}
    for req in parsed.requirements:
        if req.operator in ("=", "=="):
            match_labels[req.key] = req.values[0]
        elif req.operator in ops:
            e: dict = {"key": req.key, "operator": ops[req.operator]}
            if req.values:
                e["values"] = list(req.values)
            exprs.append(e)
        else:
            raise UsageError(f'"{req.operator}" is not a valid label selector operator')
    sel: dict = {}
    if match_labels:
        sel["matchLabels"] = match_labels
    if exprs:
        sel["matchExpressions"] = exprs
    return sel


def pod_disruption_budget(name: str, selector: dict, min_available: str = "", max_unavailable: str = "",
                          namespace: str | None = None) -> dict:
    """``kubectl create poddisruptionbudget``'s object (policy/v1 struct order)."""
    spec: dict = {}
    if min_available:
        spec["minAvailable"] = parse_int_or_string(min_available)
    spec["selector"] = selector
    if not min_available and max_unavailable:
        spec["maxUnavailable"] = parse_int_or_string(max_unavailable)
    return {"kind": "PodDisruptionBudget", "apiVersion": "policy/v1", "metadata": metadata(name, namespace),
            "spec": spec, "status": {"disruptionsAllowed": 0, "currentHealthy": 0, "desiredHealthy": 0,
                                     "expectedPods": 0}}


def pod(name: str, image: str, labels: dict | None = None, annotations: dict | None = None,
        env: list[dict] | None = None, port: int | None = None, restart: str = "", command: bool = False,
        args: list[str] | None = None, image_pull_policy: str = "", privileged: bool = False,
        namespace: str | None = None, stdin: bool = False, stdin_once: bool = False, tty: bool = False) -> dict:
    """``kubectl run``'s object (the run-pod/v1 generator, BasicPod); ``stdin``, ``stdin_once``
    and ``tty`` as ``-i`` and ``-t`` set them."""
    c: dict = {"name": name}
    if image:
        c["image"] = image
    if args:
        c["command" if command else "args"] = list(args)
    if port is not None:
        c["ports"] = [{"containerPort": port}]
    if env:
        c["env"] = env
    c["resources"] = {}
    if image_pull_policy:
        c["imagePullPolicy"] = image_pull_policy
    if privileged:
        c["securityContext"] = {"privileged": True}
    if stdin:
        c["stdin"] = True
    if stdin_once:
        c["stdinOnce"] = True
    if tty:
        c["tty"] = True
    return {
        "kind": "Pod",
        "apiVersion": "v1",
        "metadata": metadata(name, namespace, labels if labels is not None else {"run": name}, annotations),
        "spec": {"containers": [c], "restartPolicy": restart or "Always", "dnsPolicy": "ClusterFirst"},
        "status": {},
    }
