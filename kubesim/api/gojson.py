"""Go's ``encoding/json`` of kubesim's objects as the API server's Go types hold them.

Two kinds of message print a Go value of the API server, and both go through ``json.Marshal``:

- a field error's bad value. ``field.Error.ErrorBody`` (k8s.io/apimachinery v0.35
  ``pkg/util/validation/field/errors.go``) prints an int, float or bool with ``%v`` and a string
  with ``%q``; any other value as ``json.Marshal`` writes it, and only if that fails as its
  ``String()`` or, last, ``%#v``. :class:`GoJSON` is such a value, ready for
  ``kubesim.errors.FieldError`` to print verbatim;
- the diff of a refused update. ``diff.Diff`` (``pkg/util/diff/diff.go``, built without the
  ``usegocmp`` tag as the release binaries are) writes both values with
  ``json.MarshalIndent(v, "", " ")`` and prints go-difflib's unified diff of the two texts, with
  three lines of context and no file header: :func:`diff`.

Validation works on the internal types, whose structs have no ``json`` tags: their JSON is keyed
by the Go field names, in declaration order, with every field present (``""``, ``0``, ``false``,
``null`` for nil pointers, slices and maps). ``kubesim.api.gotypes`` has their layouts; this
module reads kubesim's v1 JSON objects through them, as ``pkg/apis/core/v1`` converts them:

- a field absent from the object is its Go zero value; a list or map is ``null`` when absent and
  ``[]``/``{}`` when given empty (JSON decoding and the conversions keep that difference);
- ``resource.Quantity`` marshals as its canonical string, ``intstr.IntOrString`` as a number or
  a string, ``metav1.Time`` as its RFC 3339 text (``null`` when zero);
- ``Convert_v1_PodSpec_To_core_PodSpec`` moves ``hostNetwork``, ``hostPID``, ``hostIPC``,
  ``shareProcessNamespace`` and ``hostUsers`` into the (then always present) pod security
  context, and reads the deprecated ``serviceAccount`` when ``serviceAccountName`` is empty;
- Go maps marshal with their keys sorted; ``json.Marshal`` escapes ``<``, ``>`` and ``&``.

go-difflib (github.com/pmezard/go-difflib v1.0.0) is a port of Python's ``difflib``: its
``SequenceMatcher`` (with the same automatic junk heuristic) is Python's, so only the hunk
text is written here.
"""

from __future__ import annotations

import functools
from typing import Any

from kubesim.api.gofmt import go_json
from kubesim.api.gotypes import LAYOUTS

__all__ = ["GoJSON", "diff", "marshal"]


class GoJSON:
    """A field error's bad value as ``ErrorBody`` prints it: ``json.Marshal`` of ``value`` held as
    the Go type ``go_type`` (a type of ``kubesim.api.gotypes``, or ``[]T``, ``*T``,
    ``map[string]T`` of one). Without a type, ``value`` is taken as decoded JSON (a ``[]string``,
    a ``map[string]string``: keys sorted, as Go sorts a map's)."""

    __slots__ = ("text",)

    def __init__(self, value: Any, go_type: str | None = None):
        self.text = marshal(value, go_type)

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"GoJSON({self.text!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, GoJSON) and other.text == self.text

    def __hash__(self) -> int:
        return hash(self.text)


def marshal(value: Any, go_type: str | None = None, indent: str | None = None) -> str:
    """``json.Marshal`` (or, with ``indent``, ``json.MarshalIndent(v, "", indent)``) of ``value``,
    a v1 JSON value, held as the Go type ``go_type``."""
    return go_json(_build(value, go_type), indent, sort_keys=False)


def diff(old: Any, new: Any, go_type: str) -> str:
    """apimachinery's ``diff.Diff(old, new)`` of two values of the Go type ``go_type``: the
    unified diff of their ``MarshalIndent`` texts, ``""`` when they are the same."""
    import difflib  # (here: only a refused pod update prints a diff; every pod create imports this module)

    a = _split_lines(marshal(old, go_type, " "))
    b = _split_lines(marshal(new, go_type, " "))
    out: list[str] = []
    for group in difflib.SequenceMatcher(None, a, b).get_grouped_opcodes(3):
        first, last = group[0], group[-1]
        out.append(f"@@ -{_range(first[1], last[2])} +{_range(first[3], last[4])} @@\n")
        for tag, i1, i2, j1, j2 in group:
            if tag == "equal":
                out.extend(" " + line for line in a[i1:i2])
                continue
            if tag in ("replace", "delete"):
                out.extend("-" + line for line in a[i1:i2])
            if tag in ("replace", "insert"):
                out.extend("+" + line for line in b[j1:j2])
    return "".join(out)


def _split_lines(s: str) -> list[str]:
    """go-difflib's ``SplitLines``: each line keeps its newline, and the last one gets one."""
    lines = s.split("\n")
    return [line + "\n" for line in lines]


def _range(start: int, stop: int) -> str:
    """go-difflib's ``formatRangeUnified`` (Python's ``_format_range_unified``)."""
    beginning, length = start + 1, stop - start
    if length == 1:
        return str(beginning)
    if not length:
        beginning -= 1
    return f"{beginning},{length}"


# -- the layouts ----------------------------------------------------------------------------------


class _Struct:
    __slots__ = ("fields", "tagged")

    def __init__(self, tagged: bool):
        self.tagged = tagged
        # (output key, v1 key, type, omitempty, omitzero); output key None: an embedded struct,
        # read from the same object or, with a v1 key, from the object under it
        self.fields: list[tuple[str | None, str, str, bool, bool]] = []


def _v1_key(go_name: str) -> str:
    """A Go field's name with its leading capitals lowered, the last of several kept when a
    lowercase letter follows (``DNSPolicy`` -> ``dnsPolicy``, ``TTY`` -> ``tty``)."""
    n = len(go_name) - len(go_name.lstrip("ABCDEFGHIJKLMNOPQRSTUVWXYZ"))
    if n == len(go_name):
        return go_name.lower()
    if n > 1:
        n -= 1
    return go_name[:n].lower() + go_name[n:]


@functools.cache
def _structs() -> dict[str, _Struct]:
    structs: dict[str, _Struct] = {}
    current: _Struct | None = None
    for line in LAYOUTS.splitlines():
        if not line.strip():
            continue
        words = line.split()
        if not line.startswith(" "):
            current = structs[words[0]] = _Struct(tagged=words[1:] == ["json"])
            continue
        assert current is not None
        if words[0].startswith("..."):
            current.fields.append((None, words[1] if len(words) > 1 else "", words[0][3:], False, False))
        elif current.tagged:
            current.fields.append((words[0], words[0], words[1], "omitempty" in words, "omitzero" in words))
        else:
            key = words[2] if len(words) > 2 else _v1_key(words[0])
            current.fields.append((words[0], key, words[1], False, False))
    return structs


# -- building the value encoding/json sees --------------------------------------------------------


def _build(value: Any, typ: str | None) -> Any:
    """``value`` (v1 JSON) as the plain data ``go_json`` writes for the Go type ``typ``: dicts
    in output order (structs in field order, maps sorted), lists, strings, numbers, None."""
    if typ is None:
        return _sorted(value)
    if typ.startswith("*"):
        return None if value is None else _build(value, typ[1:])
    if typ.startswith("[]"):
        if not isinstance(value, list):
            return None
        return [_build(v, typ[2:]) for v in value]
    if typ.startswith("map[string]"):
        if not isinstance(value, dict):
            return None
        return {str(k): _build(value[k], typ[11:]) for k in sorted(value, key=str)}
    scalar = _SCALARS.get(typ)
    if scalar is not None:
        return scalar(value)
    if typ == "PodSpec" and isinstance(value, dict):
        value = _pod_spec_to_internal(value)
    out: dict[str, Any] = {}
    _fill(out, value if isinstance(value, dict) else {}, _structs()[typ])
    return out


def _fill(out: dict, src: dict, struct: _Struct) -> None:
    for key, v1_key, typ, omitempty, omitzero in struct.fields:
        if key is None:  # embedded: its fields are promoted into this object
            inner = src.get(v1_key) if v1_key else src
            _fill(out, inner if isinstance(inner, dict) else {}, _structs()[typ])
            continue
        raw = src.get(v1_key)
        built = _build(raw, typ)
        if (omitempty and _empty(raw, built, typ)) or (omitzero and (built is None or built in ("", 0))):
            continue
        out[key] = built


def _empty(raw: Any, built: Any, typ: str) -> bool:
    """encoding/json's ``isEmptyValue`` (``omitempty``): false, 0, "", a nil pointer, an empty
    slice or map. A struct value is never empty."""
    if typ.startswith("*"):
        return raw is None
    if typ.startswith(("[]", "map[")):
        return not built
    if typ in ("string", "int", "bool", "float"):
        return built in ("", 0)  # False == 0 == 0.0
    return False


def _string(v: Any) -> str:
    return v if isinstance(v, str) else ""


def _int(v: Any) -> int:
    return v if isinstance(v, int) and not isinstance(v, bool) else 0


def _bool(v: Any) -> bool:
    return v is True


def _float(v: Any) -> float:
    return float(v) if isinstance(v, (int, float)) and not isinstance(v, bool) else 0.0


def _quantity(v: Any) -> str:
    """``Quantity.MarshalJSON``: its String(); the zero Quantity writes ``"0"``."""
    if v is None:
        return "0"
    from kubesim.api.quantity import from_json

    try:
        return str(from_json(v))
    except ValueError:
        return str(v)


def _int_or_string(v: Any) -> int | str:
    """``IntOrString.MarshalJSON``: the string, or the number (0 for the zero value)."""
    if isinstance(v, str):
        return v
    return _int(v)


def _time(v: Any) -> str | None:
    """``metav1.Time.MarshalJSON``: RFC 3339 in UTC, ``null`` for the zero time."""
    return v if isinstance(v, str) and v else None


_SCALARS = {"string": _string, "int": _int, "bool": _bool, "float": _float, "Quantity": _quantity,
            "IntOrString": _int_or_string, "Time": _time,
            "FieldsV1": lambda v: v}  # its MarshalJSON writes the raw JSON it holds, keys as they came


def _sorted(value: Any) -> Any:
    """Decoded JSON as Go marshals it from a map: keys sorted."""
    if isinstance(value, dict):
        return {str(k): _sorted(value[k]) for k in sorted(value, key=str)}
    if isinstance(value, list):
        return [_sorted(v) for v in value]
    return value


_HOST_FIELDS = ("hostNetwork", "hostPID", "hostIPC", "shareProcessNamespace", "hostUsers")


def _pod_spec_to_internal(spec: dict) -> dict:
    """``Convert_v1_PodSpec_To_core_PodSpec``'s own steps (``pkg/apis/core/v1/conversion.go``):
    the host namespace fields move into the security context, which is then never nil, and the
    deprecated ``serviceAccount`` stands in for an empty ``serviceAccountName``."""
    spec = dict(spec)
    sc = spec.get("securityContext")
    sc = dict(sc) if isinstance(sc, dict) else {}
    for f in _HOST_FIELDS:
        sc[f] = spec.get(f)
    spec["securityContext"] = sc
    if not spec.get("serviceAccountName"):
        spec["serviceAccountName"] = spec.get("serviceAccount")
    return spec
