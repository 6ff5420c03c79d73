"""``-o yaml|json|name`` as kubectl prints them.

Upstream: staging/src/k8s.io/cli-runtime/pkg/printers/{json.go,yaml.go,name.go}. kubectl prints
unstructured objects, so map keys come out sorted (Go's encoding of maps); JSON is indented
with four spaces and HTML-escaped as Go's encoder does; YAML is sigs.k8s.io/yaml's
(``kubesim.codec.dump``). Several objects become a ``List`` for
JSON and YAML, and ``-o name`` prints ``kind.group/name``.
"""

from __future__ import annotations

import json

from kubesim.api.kinds import for_object
from kubesim.codec.dump import to_yaml


def omit_managed_fields(obj):
    """The object without metadata.managedFields (a List: its items without), as kubectl's
    printers show it unless --show-managed-fields (cli-runtime ``OmitManagedFieldsPrinter``)."""
    if not isinstance(obj, dict):
        return obj
    md = obj.get("metadata")
    if isinstance(md, dict) and "managedFields" in md:
        obj = dict(obj)
        obj["metadata"] = {k: v for k, v in md.items() if k != "managedFields"}
    if isinstance(obj.get("items"), list):
        obj = dict(obj)
        obj["items"] = [omit_managed_fields(o) for o in obj["items"]]
    return obj


def as_list(objs: list[dict]) -> dict:
    return {"apiVersion": "v1", "items": objs, "kind": "List", "metadata": {"resourceVersion": ""}}


def to_json(obj) -> str:
    text = json.dumps(obj, indent=4, sort_keys=True, ensure_ascii=False)
    # Go's encoding/json escapes these inside strings (they occur nowhere else in JSON)
    text = text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return text + "\n"


def name_line(obj: dict) -> str:
    info = for_object(obj)
    ref = info.ref if info else obj.get("kind", "").lower()
    return f"{ref}/{(obj.get('metadata') or {}).get('name') or '<unknown>'}"  # NamePrinter's placeholder


def render(objs: list[dict], fmt: str, single: bool) -> str:
    """Objects in ``fmt`` (json|yaml|name); ``single`` when the user asked for one by name."""
    if fmt == "name":
        return "".join(name_line(o) + "\n" for o in objs)
    payload = objs[0] if single and len(objs) == 1 else as_list(objs)
    if fmt == "json":
        return to_json(payload)
    if fmt == "yaml":
        return to_yaml(payload)
    raise ValueError(fmt)
