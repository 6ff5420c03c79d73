"""YAML out, as sigs.k8s.io/yaml writes it (go-yaml v2): block style, keys sorted, sequences not
indented under their key, strings that need quoting in double quotes, strings with newlines as
literal blocks. What ``kubectl -o yaml`` prints and what kubeadm writes its manifests with.

Upstream: sigs.k8s.io/yaml (Marshal: JSON, then go-yaml v2's encoder) and go-yaml v2's
resolve.go (which plain scalars read back as something other than a string).
"""

from __future__ import annotations

_DUMPER = None

_GO_NULL = {"", "~", "null", "Null", "NULL"}
_GO_BOOL = {"y", "Y", "yes", "Yes", "YES", "n", "N", "no", "No", "NO", "true", "True", "TRUE",
            "false", "False", "FALSE", "on", "On", "ON", "off", "Off", "OFF"}
_GO_FLOAT_SPECIAL = {".inf", ".Inf", ".INF", "+.inf", "+.Inf", "+.INF", "-.inf", "-.Inf", "-.INF",
                     ".nan", ".NaN", ".NAN"}


def go_yaml_needs_quotes(s: str) -> bool:
    """True when go-yaml v2 would not write ``s`` plain because it resolves to a non-string
    (null, bool, int, float, timestamp) or is a base-60 float: it then double-quotes it."""
    import re

    if s in _GO_NULL or s in _GO_BOOL or s in _GO_FLOAT_SPECIAL:
        return True
    if not s or s[0] not in "-+.0123456789":
        return False
    plain = s.replace("_", "")
    body = plain[1:] if plain[:1] in "+-" else plain
    try:
        if body[:2].lower() in ("0b", "0x", "0o"):
            int(body, 0)
        elif len(body) > 1 and body[0] == "0" and body.isdigit():
            int(body, 8)  # strconv's base 0 reads a leading 0 as octal
        else:
            int(body, 10)
        return True
    except ValueError:
        pass
    if re.fullmatch(r"[-+]?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?", plain) or \
            re.fullmatch(r"[-+]?(inf|infinity|nan)", plain, re.IGNORECASE):
        return True
    if re.fullmatch(r"[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?", s):
        return True
    return bool(re.fullmatch(r"\d{4}-\d{1,2}-\d{1,2}([Tt ]\d{1,2}:\d{1,2}:\d{1,2}(\.\d+)?"
                             r"(Z|[+-]\d{1,2}(:\d{2})?)?)?", s))


def _dumper():
    global _DUMPER
    if _DUMPER is not None:
        return _DUMPER
    from kubesim.codec.pyyaml import import_yaml

    yaml = import_yaml()

    base = getattr(yaml, "CSafeDumper", yaml.SafeDumper)

    class KubeDumper(base):  # type: ignore[misc, valid-type]
        pass

    def represent_str(dumper, data: str):
        if "\n" in data:
            return dumper.represent_scalar("tag:yaml.org,2002:str", data, style="|")
        if go_yaml_needs_quotes(data):
            return dumper.represent_scalar("tag:yaml.org,2002:str", data, style='"')
        return dumper.represent_scalar("tag:yaml.org,2002:str", data)

    KubeDumper.add_representer(str, represent_str)
    _DUMPER = KubeDumper
    return KubeDumper


def to_yaml(obj) -> str:
    from kubesim.codec.pyyaml import import_yaml

    yaml = import_yaml()

    return yaml.dump(obj, Dumper=_dumper(), default_flow_style=False, sort_keys=True,
                     allow_unicode=True, width=80)
