"""Structural validation: the API server's strict-decoding messages, kubectl's BadRequest line,
the compact-schema cache, and agreement of the fast validator with jsonschema."""

from __future__ import annotations

import copy
import json
import os

import pytest

from kubesim.codec import schema


@pytest.fixture(scope="module", autouse=True)
def cache_dir(tmp_path_factory):
    d = tmp_path_factory.mktemp("kubesim-cache")
    old = os.environ.get("KUBESIM_CACHE_DIR")
    os.environ["KUBESIM_CACHE_DIR"] = str(d)
    schema.clear_memo()
    yield d
    schema.clear_memo()
    if old is None:
        os.environ.pop("KUBESIM_CACHE_DIR", None)
    else:
        os.environ["KUBESIM_CACHE_DIR"] = old


def pod(**spec_extra) -> dict:
    p = {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": "web", "labels": {"app": "web"}},
        "spec": {"containers": [{"name": "nginx", "image": "nginx:1.25", "ports": [{"containerPort": 80}],
                                 "resources": {"requests": {"cpu": "100m", "memory": "128Mi"}}}]},
    }
    p["spec"].update(spec_extra)
    return p


def with_path(obj: dict, path: str, value) -> dict:
    """A copy of obj with value set at a dotted path (``[i]`` for list items)."""
    out = copy.deepcopy(obj)
    cur = out
    parts = path.replace("[", ".[").split(".")
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if part.startswith("["):
            key = int(part[1:-1])
        else:
            key = part
        if last:
            cur[key] = value
        else:
            if isinstance(key, str) and key not in cur:
                cur[key] = {}
            cur = cur[key]
    return out


CNT = "spec.containers[0]"

# (id, manifest, expected messages) - the messages the API server's decoder returns.
STRUCTURE_CASES = [
    ("a clean pod decodes without messages", pod(), []),
    ("an unknown spec field is a strict error", with_path(pod(), "spec.foo", 1), ['unknown field "spec.foo"']),
    ("an unknown container field names the list index",
     with_path(pod(), f"{CNT}.imagee", "x"), ['unknown field "spec.containers[0].imagee"']),
    ("field names are case-sensitive", with_path(pod(), f"{CNT}.Image", "x"), ['unknown field "spec.containers[0].Image"']),
    ("several unknown fields come back in sorted key order",
     with_path(with_path(pod(), "spec.zeta", 1), f"{CNT}.foo", 1),
     ['unknown field "spec.containers[0].foo"', 'unknown field "spec.zeta"']),
    ("unknown fields at the top level and in metadata are reported",
     with_path(with_path(pod(), "specs", {}), "metadata.nme", "x"),
     ['unknown field "metadata.nme"', 'unknown field "specs"']),
    ("the contents of an unknown field are not inspected",
     with_path(pod(), "spec.extra", {"deep": {"er": 1}}), ['unknown field "spec.extra"']),
    ("a string where a list of containers belongs",
     with_path(pod(), "spec.containers", "nginx"),
     ["json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container"]),
    ("a string in the list of containers",
     with_path(pod(), "spec.containers", ["nginx"]),
     ["json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type v1.Container"]),
    ("a quoted containerPort",
     with_path(pod(), f"{CNT}.ports[0].containerPort", "80"),
     ["json: cannot unmarshal string into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32"]),
    ("a fractional containerPort shows the number",
     with_path(pod(), f"{CNT}.ports[0].containerPort", 80.5),
     ["json: cannot unmarshal number 80.5 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32"]),
    ("a containerPort beyond int32",
     with_path(pod(), f"{CNT}.ports[0].containerPort", 3000000000),
     ["json: cannot unmarshal number 3000000000 into Go struct field ContainerPort.spec.containers.ports.containerPort of type int32"]),
    ("an integral float is an integer, as kubectl's JSON encoding writes it",
     with_path(pod(), f"{CNT}.ports[0].containerPort", 80.0), []),
    ("a number as a label value",
     with_path(pod(), "metadata.labels", {"tier": 1}),
     ["json: cannot unmarshal number into Go struct field ObjectMeta.metadata.labels of type string"]),
    ("a boolean as a nodeSelector value",
     with_path(pod(), "spec.nodeSelector", {"ssd": True}),
     ["json: cannot unmarshal bool into Go struct field PodSpec.spec.nodeSelector of type string"]),
    ("a command given as a string",
     with_path(pod(), f"{CNT}.command", "sleep 3600"),
     ["json: cannot unmarshal string into Go struct field Container.spec.containers.command of type []string"]),
    ("a number as an env value",
     with_path(pod(), f"{CNT}.env", [{"name": "A", "value": 1}]),
     ["json: cannot unmarshal number into Go struct field EnvVar.spec.containers.env.value of type string"]),
    ("an object where a string belongs",
     with_path(pod(), f"{CNT}.image", {"name": "nginx"}),
     ["json: cannot unmarshal object into Go struct field Container.spec.containers.image of type string"]),
    ("an array where a struct belongs",
     with_path(pod(), "spec.securityContext", []),
     ["json: cannot unmarshal array into Go struct field PodSpec.spec.securityContext of type v1.PodSecurityContext"]),
    ("a named string type is printed with its package",
     with_path(pod(), "spec.restartPolicy", 1),
     ["json: cannot unmarshal number into Go struct field PodSpec.spec.restartPolicy of type v1.RestartPolicy"]),
    ("a string where a resource list belongs",
     with_path(pod(), f"{CNT}.resources.limits", "1"),
     ["json: cannot unmarshal string into Go struct field ResourceRequirements.spec.containers.resources.limits of type v1.ResourceList"]),
    ("a quoted tolerationSeconds",
     with_path(pod(), "spec.tolerations", [{"key": "a", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": "300"}]),
     ["json: cannot unmarshal string into Go struct field Toleration.spec.tolerations.tolerationSeconds of type int64"]),
    ("a string where a bool belongs",
     with_path(pod(), "spec.hostNetwork", "true"),
     ["json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool"]),
    ("null is accepted anywhere, as Go leaves the zero value",
     with_path(with_path(pod(), "spec.nodeSelector", None), f"{CNT}.image", None), []),
    ("the first type error wins and unknown fields are then not reported",
     with_path(with_path(pod(), "spec.unknown", 1), "spec.hostNetwork", "yes"),
     ["json: cannot unmarshal string into Go struct field PodSpec.spec.hostNetwork of type bool"]),
    ("an unparsable quantity is reported with ParseQuantity's regular expression",
     with_path(pod(), f"{CNT}.resources.limits", {"memory": "1Gb"}),
     ["quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]),
    ("an unknown quantity suffix",
     with_path(pod(), f"{CNT}.resources.limits", {"memory": "1iG"}),
     ["unable to parse quantity's suffix"]),
    ("a boolean quantity", with_path(pod(), f"{CNT}.resources.limits", {"cpu": True}),
     ["quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]),
    ("numeric quantities are fine", with_path(pod(), f"{CNT}.resources.limits", {"cpu": 1, "memory": 1.5}), []),
    ("a quantity error aborts decoding and wins over an earlier type error",
     with_path(with_path(pod(), f"{CNT}.command", "sleep"), f"{CNT}.resources.limits", {"cpu": "x"}),
     ["quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]),
    ("a boolean int-or-string port is reported by IntOrString's decoder",
     with_path(pod(), f"{CNT}.livenessProbe", {"httpGet": {"port": True}}),
     ["json: cannot unmarshal bool into Go struct field HTTPGetAction.spec.containers.livenessProbe.httpGet.port of type int32"]),
    ("a named port is a string int-or-string", with_path(pod(), f"{CNT}.livenessProbe", {"httpGet": {"port": "http"}}), []),
    ("a number as a timestamp",
     with_path(pod(), "metadata.creationTimestamp", 5),
     ["json: cannot unmarshal number into Go struct field ObjectMeta.metadata.creationTimestamp of type string"]),
    ("managedFields entries keep raw JSON", with_path(pod(), "metadata.managedFields", [{"fieldsV1": {"f:x": {}}}]), []),
    ("status is decoded strictly too", with_path(pod(), "status.phasee", "Running"), ['unknown field "status.phasee"']),
]


@pytest.mark.parametrize("obj,expected", [c[1:] for c in STRUCTURE_CASES], ids=[c[0] for c in STRUCTURE_CASES])
def test_validate_structure(obj, expected):
    assert schema.validate_structure(obj) == expected


NODE_NS_CASES = [
    ("a node with an unknown spec field",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "spec": {"taint": []}},
     ['unknown field "spec.taint"']),
    ("a node taint effect given as a number",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "spec": {"taints": [{"key": "a", "effect": 1}]}},
     ["json: cannot unmarshal number into Go struct field Taint.spec.taints.effect of type v1.TaintEffect"]),
    ("node capacity with a bad quantity",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "status": {"capacity": {"cpu": "four"}}},
     ["quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]),
    ("a namespace with finalizers as a string",
     {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev"}, "spec": {"finalizers": "kubernetes"}},
     ["json: cannot unmarshal string into Go struct field NamespaceSpec.spec.finalizers of type []v1.FinalizerName"]),
    ("a namespace finalizer given as a number",
     {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev"}, "spec": {"finalizers": [1]}},
     ["json: cannot unmarshal number into Go struct field NamespaceSpec.spec.finalizers of type v1.FinalizerName"]),
    ("a clean namespace", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev"}}, []),
    ("a kind the registry does not know is the caller's concern",
     {"apiVersion": "example.com/v1", "kind": "Widget", "spec": {"anything": 1}}, []),
    ("a known kind under an unknown apiVersion is not validated",
     {"apiVersion": "v2", "kind": "Pod", "spec": {"anything": 1}}, []),
    ("a lease renewed at a MicroTime with six fractional digits",
     {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"},
      "spec": {"renewTime": "2026-11-22T10:00:00.000000Z"}}, []),
    ("a MicroTime without its fractional digits is refused by time.Parse (real v1.35 server's text)",
     {"apiVersion": "coordination.k8s.io/v1", "kind": "Lease", "metadata": {"name": "l"},
      "spec": {"renewTime": "2026-11-22T10:00:00Z"}},
     ['parsing time "2026-11-22T10:00:00Z" as "2006-01-02T15:04:05.000000Z07:00": cannot parse "Z" as ".000000"']),
]


@pytest.mark.parametrize("obj,expected", [c[1:] for c in NODE_NS_CASES], ids=[c[0] for c in NODE_NS_CASES])
def test_validate_structure_other_kinds(obj, expected):
    assert schema.validate_structure(obj) == expected


BAD_REQUEST_CASES = [
    ("one unknown field", "pod.yaml", ['unknown field "spec.foo"'], "creating",
     'Error from server (BadRequest): error when creating "pod.yaml": Pod in version "v1" cannot be handled as a Pod: '
     'strict decoding error: unknown field "spec.foo"'),
    ("several unknown fields are joined with a comma", "pod.yaml",
     ['unknown field "spec.bar"', 'unknown field "spec.foo"'], "creating",
     'Error from server (BadRequest): error when creating "pod.yaml": Pod in version "v1" cannot be handled as a Pod: '
     'strict decoding error: unknown field "spec.bar", unknown field "spec.foo"'),
    ("a type error carries no strict-decoding prefix", "pod.yaml",
     ["json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container"], "creating",
     'Error from server (BadRequest): error when creating "pod.yaml": Pod in version "v1" cannot be handled as a Pod: '
     "json: cannot unmarshal string into Go struct field PodSpec.spec.containers of type []v1.Container"),
    ("standard input and another verb", "STDIN", ['unknown field "spec.foo"'], "replacing",
     'Error from server (BadRequest): error when replacing "STDIN": Pod in version "v1" cannot be handled as a Pod: '
     'strict decoding error: unknown field "spec.foo"'),
    ("without a source there is no 'error when' part", "", ['unknown field "spec.foo"'], "creating",
     'Error from server (BadRequest): Pod in version "v1" cannot be handled as a Pod: '
     'strict decoding error: unknown field "spec.foo"'),
]


@pytest.mark.parametrize("source,messages,verb,expected", [c[1:] for c in BAD_REQUEST_CASES],
                         ids=[c[0] for c in BAD_REQUEST_CASES])
def test_format_bad_request(source, messages, verb, expected):
    assert schema.format_bad_request(source, pod(), messages, verb=verb) == expected


def test_format_bad_request_uses_the_version_without_group():
    obj = {"apiVersion": "apps/v1", "kind": "Deployment"}
    line = schema.format_bad_request("d.yaml", obj, ['unknown field "spec.x"'])
    assert 'Deployment in version "v1" cannot be handled as a Deployment' in line


QUANTITY_DECODE_CASES = [
    ("white space around a quantity is trimmed", {"cpu": " 1 "}, []),
    ("an exponent past int32 decodes (kubectl 1.36 reads 5e99999999999 as 50e1215752190)",
     {"cpu": "5e99999999999"}, []),
    ("an exponent past int64 does not", {"cpu": "1e9223372036854775808"}, ["unable to parse quantity's suffix"]),
    ("a number with no digit is ParseQuantity's numeric error", {"cpu": "e-10"},
     ["unable to parse numeric part of quantity"]),
    ("an object quantity", {"cpu": {"a": 1}},
     ["quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"]),
]


@pytest.mark.parametrize("limits,expected", [c[1:] for c in QUANTITY_DECODE_CASES],
                         ids=[c[0] for c in QUANTITY_DECODE_CASES])
def test_quantities_decode_as_kubesim_api_quantity_reads_them(limits, expected):
    assert schema.validate_structure(with_path(pod(), f"{CNT}.resources.limits", limits)) == expected


def test_a_large_float_is_named_with_go_json_digits():
    # kubectl 1.36 (`kubectl set resources --local -f`, the same decoder) prints exactly this
    obj = with_path(pod(), f"{CNT}.ports", [{"containerPort": 1.2870102916812795e+18}])
    assert schema.validate_structure(obj) == [
        "json: cannot unmarshal number 1287010291681279500 into Go struct field "
        "ContainerPort.spec.containers.ports.containerPort of type int32"]


# --- the compact schema and its cache


def test_the_compiled_schema_is_cached_on_disk(cache_dir):
    schema.compact_schema("v1", "Pod")
    files = list(cache_dir.rglob("core_v1_Pod.json"))
    assert len(files) == 1
    data = json.loads(files[0].read_text())
    assert data["root"] == "io.k8s.api.core.v1.Pod"
    assert "io.k8s.api.core.v1.Container" in data["defs"]
    assert "io.k8s.api.apps.v1.Deployment" not in data["defs"]  # only the closure of Pod's references


def test_a_cached_schema_is_read_back(cache_dir):
    schema.compact_schema("v1", "Namespace")
    path = next(cache_dir.rglob("core_v1_Namespace.json"))
    data = json.loads(path.read_text())
    data["defs"]["io.k8s.api.core.v1.NamespaceSpec"]["p"]["extra"] = {"k": "str", "g": "string", "n": True}
    path.write_text(json.dumps(data))
    schema.clear_memo()
    ns = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "a"}, "spec": {"extra": "x"}}
    assert schema.validate_structure(ns) == []  # proves the file, not the bundled schema, was used
    path.unlink()
    schema.clear_memo()
    assert schema.validate_structure(ns) == ['unknown field "spec.extra"']


def test_a_corrupt_cache_file_is_rebuilt(cache_dir):
    schema.compact_schema("v1", "Node")
    path = next(cache_dir.rglob("core_v1_Node.json"))
    path.write_text("{not json")
    schema.clear_memo()
    node = {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"}, "spec": {"bogus": 1}}
    assert schema.validate_structure(node) == ['unknown field "spec.bogus"']
    assert json.loads(path.read_text())["root"] == "io.k8s.api.core.v1.Node"


def test_a_registered_kind_without_a_bundled_schema_is_remembered(cache_dir, monkeypatch):
    from kubesim.api.kinds import REGISTRY, KindInfo

    info = KindInfo("Gizmo", "kubesim.io", "v1alpha1", "gizmos", False)
    monkeypatch.setitem(REGISTRY.by_gvk, (info.api_version, info.kind), info)
    schema.clear_memo()
    obj = {"apiVersion": "kubesim.io/v1alpha1", "kind": "Gizmo", "spec": {"x": 1}}
    assert schema.validate_structure(obj) == []
    marker = next(cache_dir.rglob("kubesim.io_v1alpha1_Gizmo.json"))
    assert json.loads(marker.read_text()) == {"root": None, "defs": {}}
    schema.clear_memo()
    monkeypatch.setattr(schema, "load_definitions", lambda: pytest.fail("definitions reloaded"))
    assert schema.validate_structure(obj) == []


def test_an_unwritable_cache_dir_falls_back_to_memory(tmp_path, monkeypatch):
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    monkeypatch.setenv("KUBESIM_CACHE_DIR", str(blocker / "cache"))
    schema.clear_memo()
    try:
        assert schema.validate_structure(with_path(pod(), "spec.foo", 1)) == ['unknown field "spec.foo"']
    finally:
        schema.clear_memo()


def test_xdg_cache_home_is_used_when_no_override(tmp_path, monkeypatch):
    monkeypatch.delenv("KUBESIM_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert schema._cache_root() == str(tmp_path / "kubesim")


def test_the_cache_key_names_the_kubernetes_validate_version():
    key = schema._locate()[1]
    assert key.startswith("kubernetes-validate-1.")
    assert schema.SCHEMA_SET in key


# --- agreement with jsonschema, the reference


_VALIDATORS: dict = {}


def _reference_validator(kind: str):
    if kind not in _VALIDATORS:
        import jsonschema
        from referencing import Registry, Resource

        kind_file = {"Pod": "pod-v1.json", "Node": "node-v1.json", "Namespace": "namespace-v1.json",
                     "Event": "event-v1.json"}[kind]
        with open(os.path.join(schema.schema_dir(), kind_file)) as fh:
            root = json.load(fh)
        registry = Resource.from_contents(_definitions()) @ (Resource.from_contents(root) @ Registry())
        _VALIDATORS[kind] = jsonschema.Draft202012Validator(root, registry=registry)
    return _VALIDATORS[kind]


def _jsonschema_issues(obj: dict) -> list[tuple[str, str]]:
    validator = _reference_validator(obj["kind"])
    out = []
    for err in validator.iter_errors(obj):
        path = _path(err.absolute_path)
        prefix = path + "." if path else ""
        if err.validator == "additionalProperties":
            props = err.schema.get("properties", {})
            out.extend(("unknown", prefix + k) for k in err.instance if k not in props)
        elif err.validator == "required":  # one error per missing property: "'name' is a required property"
            out.append(("required", prefix + err.message.split("'")[1]))
        elif err.validator in ("type", "oneOf"):
            out.append(("type", path))
        elif err.validator == "enum":
            out.append(("enum", path))
        else:
            out.append((err.validator, path))
    return sorted(out)


_DEFS: dict = {}


def _definitions() -> dict:
    if not _DEFS:
        with open(os.path.join(schema.schema_dir(), "_definitions.json")) as fh:
            _DEFS.update(json.load(fh))
    return _DEFS


def _path(parts) -> str:
    s = ""
    for p in parts:
        if isinstance(p, int):
            s += f"[{p}]"
        else:
            s += ("." if s else "") + str(p)
    return s


def _full_pod() -> dict:
    p = pod(
        initContainers=[{"name": "init", "image": "busybox", "command": ["sh", "-c", "true"]}],
        volumes=[{"name": "data", "emptyDir": {"sizeLimit": "1Gi"}},
                 {"name": "cfg", "configMap": {"name": "c", "items": [{"key": "a", "path": "a"}]}}],
        affinity={"nodeAffinity": {"requiredDuringSchedulingIgnoredDuringExecution": {"nodeSelectorTerms": [
            {"matchExpressions": [{"key": "zone", "operator": "In", "values": ["a"]}]}]}},
                  "podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [
                      {"weight": 10, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                                                         "labelSelector": {"matchLabels": {"app": "web"}}}}]}},
        tolerations=[{"key": "k", "operator": "Equal", "value": "v", "effect": "NoSchedule"}],
        topologySpreadConstraints=[{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "DoNotSchedule",
                                    "labelSelector": {"matchLabels": {"app": "web"}}}],
        priorityClassName="high", nodeSelector={"disk": "ssd"},
    )
    c = p["spec"]["containers"][0]
    c["livenessProbe"] = {"httpGet": {"path": "/", "port": 80}, "periodSeconds": 5}
    c["readinessProbe"] = {"tcpSocket": {"port": "http"}}
    c["env"] = [{"name": "A", "value": "1"}, {"name": "B", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}]
    c["volumeMounts"] = [{"name": "data", "mountPath": "/data"}]
    p["status"] = {"phase": "Running", "conditions": [{"type": "Ready", "status": "True"}]}
    return p


AGREEMENT_CASES = [
    ("a minimal pod", pod()),
    ("a pod using most common fields", _full_pod()),
    ("an unknown field", with_path(_full_pod(), "spec.foo", 1)),
    ("several unknown fields at several depths",
     with_path(with_path(_full_pod(), f"{CNT}.foo", 1), "spec.affinity.nodeAffinity.bar", 2)),
    ("a missing required container name", with_path(pod(), "spec.containers", [{"image": "x"}])),
    ("a missing required containerPort", with_path(pod(), f"{CNT}.ports", [{"name": "http"}])),
    ("a missing required topologyKey",
     with_path(pod(), "spec.topologySpreadConstraints", [{"maxSkew": 1, "whenUnsatisfiable": "DoNotSchedule"}])),
    ("a wrong type for a string", with_path(pod(), f"{CNT}.image", 5)),
    ("a wrong type for an integer", with_path(pod(), f"{CNT}.ports[0].containerPort", "80")),
    ("a fractional integer", with_path(pod(), f"{CNT}.ports[0].containerPort", 80.5)),
    ("an integral float integer", with_path(pod(), f"{CNT}.ports[0].containerPort", 80.0)),
    ("a boolean where an integer belongs", with_path(pod(), "spec.terminationGracePeriodSeconds", True)),
    ("an integer where a boolean belongs", with_path(pod(), "spec.hostNetwork", 1)),
    ("a wrong type for an array", with_path(pod(), f"{CNT}.command", "sleep")),
    ("a wrong type for an object", with_path(pod(), "spec.securityContext", [])),
    ("a wrong type for a map value", with_path(pod(), "metadata.labels", {"a": 1})),
    ("a null where the schema allows null", with_path(pod(), "spec.nodeSelector", None)),
    ("a null in a non-nullable required string", with_path(pod(), f"{CNT}.name", None)),
    ("a null quantity", with_path(pod(), f"{CNT}.resources.limits", {"cpu": None})),
    ("a numeric quantity", with_path(pod(), f"{CNT}.resources.limits", {"cpu": 2})),
    ("a boolean quantity", with_path(pod(), f"{CNT}.resources.limits", {"cpu": True})),
    ("an object quantity", with_path(pod(), f"{CNT}.resources.limits", {"cpu": {"a": 1}})),
    ("an int-or-string as a string", with_path(pod(), f"{CNT}.livenessProbe", {"tcpSocket": {"port": "http"}})),
    ("an int-or-string as a float", with_path(pod(), f"{CNT}.livenessProbe", {"tcpSocket": {"port": 8.5}})),
    ("an int-or-string as a boolean", with_path(pod(), f"{CNT}.livenessProbe", {"tcpSocket": {"port": False}})),
    ("a timestamp as a number", with_path(pod(), "metadata.creationTimestamp", 5)),
    ("raw JSON fields given a list", with_path(pod(), "metadata.managedFields", [{"fieldsV1": []}])),
    ("apiVersion and kind satisfy their enums once the registry matched them", pod()),
    ("errors in status", with_path(pod(), "status", {"phase": 1, "hostIPs": [{"ipp": "x"}]})),
    ("a node with taints and capacity",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
      "spec": {"taints": [{"key": "a", "effect": "NoSchedule"}, {"effect": "NoExecute"}], "podCIDR": "10.0.0.0/24"},
      "status": {"capacity": {"cpu": "4", "memory": "8Gi"}, "addresses": [{"type": "InternalIP"}]}}),
    ("a node with type errors and unknown fields",
     {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "n"},
      "spec": {"unschedulable": "yes", "taints": [{"key": 1, "effect": "NoSchedule", "x": 1}]}}),
    ("a namespace", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev"},
                     "spec": {"finalizers": ["kubernetes"]}}),
    ("a namespace with errors", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "dev", "x": 1},
                                 "spec": {"finalizers": [1]}, "status": {"phase": []}}),
    ("an event", {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e", "namespace": "default"},
                  "involvedObject": {"kind": "Pod", "name": "p"}, "reason": "Scheduled", "count": 1,
                  "firstTimestamp": "2024-01-01T00:00:00Z"}),
    ("an event missing involvedObject and with a bad count",
     {"apiVersion": "v1", "kind": "Event", "metadata": {"name": "e"}, "count": "1"}),
]


@pytest.mark.parametrize("obj", [c[1] for c in AGREEMENT_CASES], ids=[c[0] for c in AGREEMENT_CASES])
def test_fast_validator_agrees_with_jsonschema(obj):
    reference = _jsonschema_issues(obj)
    fast = sorted(schema.schema_issues(obj))
    assert fast == reference
    assert (not fast) == (not reference)


def test_every_agreement_case_with_issues_is_meaningful():
    """Guard against a table that only exercises valid manifests."""
    invalid = [c for c in AGREEMENT_CASES if _jsonschema_issues(c[1])]
    assert len(invalid) >= 20


def _leaf_paths(obj, path=""):
    if isinstance(obj, dict):
        for k, v in obj.items():
            yield from _leaf_paths(v, f"{path}.{k}" if path else k)
    elif isinstance(obj, list):
        for i, v in enumerate(obj):
            yield from _leaf_paths(v, f"{path}[{i}]")
    if path and path not in ("apiVersion", "kind"):
        yield path


REPLACEMENTS = [1, 2.5, "x", True, None, [], {}, [1], {"zz": 1}]


def _full_node() -> dict:
    return {"apiVersion": "v1", "kind": "Node",
            "metadata": {"name": "node01", "labels": {"kubernetes.io/hostname": "node01"}},
            "spec": {"podCIDR": "10.244.1.0/24", "podCIDRs": ["10.244.1.0/24"], "unschedulable": False,
                     "taints": [{"key": "a", "value": "b", "effect": "NoSchedule"}]},
            "status": {"capacity": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "allocatable": {"cpu": "4", "memory": "8Gi", "pods": "110"},
                       "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady",
                                       "lastHeartbeatTime": "2024-01-01T00:00:00Z"}],
                       "addresses": [{"type": "InternalIP", "address": "10.0.0.1"}],
                       "nodeInfo": {"kubeletVersion": "v1.35.0", "architecture": "amd64"}}}


@pytest.mark.parametrize("base", [_full_pod(), _full_node()], ids=["a full pod", "a full node"])
def test_fast_validator_agrees_with_jsonschema_on_every_mutation(base):
    """Replace every field, one at a time, by values of every JSON type."""
    checked = 0
    for path in sorted(set(_leaf_paths(base))):
        for value in REPLACEMENTS:
            obj = with_path(base, path, value)
            assert sorted(schema.schema_issues(obj)) == _jsonschema_issues(obj), (path, value)
            checked += 1
    assert checked > 150


def test_documents_alike_but_for_their_names_share_a_verdict_a_wrong_name_does_not():
    a, b, bad = pod(), pod(), pod()
    b["metadata"]["name"] = "other"
    b["spec"]["containers"][0]["imagee"] = "x"
    bad["metadata"]["name"] = 5
    assert schema.validate_structure(a) == []
    assert schema.validate_structure(b) == ['unknown field "spec.containers[0].imagee"']
    del b["spec"]["containers"][0]["imagee"]
    assert schema.validate_structure(b) == []
    assert schema.validate_structure(bad) == [
        "json: cannot unmarshal number into Go struct field ObjectMeta.metadata.name of type string"]
    verdict = schema.validate_structure(a)
    verdict.append("changed by a caller")
    assert schema.validate_structure(a) == []
