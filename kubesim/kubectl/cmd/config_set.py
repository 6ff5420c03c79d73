"""``kubectl config set PROPERTY_NAME PROPERTY_VALUE [--set-raw-bytes]`` and ``kubectl config unset
PROPERTY_NAME``: one value of the kubeconfig, named by a dotted path.

Upstream: kubectl ``pkg/cmd/config/set.go`` (``setOptions``: ``validate``, ``modifyConfig``),
``unset.go`` and ``navigation_step_parser.go`` (``newNavigationSteps``: a path walks client-go's
internal ``clientcmdapi.Config`` by its fields' JSON names; a map key runs up to the next part that
names a field of the map's value type, so keys may hold dots; ``findNameStep``), and ``config.go``
(``toBool``: ``strconv.ParseBool``). Go's reflection over the internal types is a small table
here (``TYPES``: client-go v0.35 ``tools/clientcmd/api/types.go``), and the change is made on
kubesim's kubeconfig (``kubesim.kubectl.clientcmd.Config``, whose entries hold the v1 fields: an
internal ``act-as`` is the file's ``as``; byte fields are kept base64-encoded). The texts of
refusals are kubectl's; where kubectl prints a Go pointer (``can't set a map to a value:
map[c1:0xc000123456]``) kubesim prints a made-up address of the same shape, and where kubectl's
reflection panics (a path into ``extensions``) kubesim says so in one line and exits 2.
"""

from __future__ import annotations

from kubesim.api.gofmt import go_quote
from kubesim.errors import GoPanic, RawError, client_error

# the internal types, as reflection sees them: ("struct", name, {json name: type}), ("map", value
# type name, value type), ("string",), ("bool",), ("bytes",), ("slice", elem), ("ptr", name)
_STRING, _BOOL, _BYTES = ("string",), ("bool",), ("bytes",)
_OBJECT = ("iface", "runtime.Object")
_EXTENSIONS = ("map", "map[string]runtime.Object", _OBJECT)
PREFERENCES = ("struct", "api.Preferences", {"colors": _BOOL, "extensions": _EXTENSIONS})
CLUSTER = ("struct", "api.Cluster", {
    "-": _STRING, "server": _STRING, "tls-server-name": _STRING, "insecure-skip-tls-verify": _BOOL,
    "certificate-authority": _STRING, "certificate-authority-data": _BYTES, "proxy-url": _STRING,
    "disable-compression": _BOOL, "extensions": _EXTENSIONS})
AUTH_INFO = ("struct", "api.AuthInfo", {
    "-": _STRING, "client-certificate": _STRING, "client-certificate-data": _BYTES, "client-key": _STRING,
    "client-key-data": _BYTES, "token": _STRING, "tokenFile": _STRING, "act-as": _STRING, "act-as-uid": _STRING,
    "act-as-groups": ("slice", "string"), "act-as-user-extra": ("map", "map[string][]string", ("slice", "string")),
    "username": _STRING, "password": _STRING, "auth-provider": ("ptr", "*api.AuthProviderConfig"),
    "exec": ("ptr", "*api.ExecConfig"), "extensions": _EXTENSIONS})
CONTEXT = ("struct", "api.Context", {"-": _STRING, "cluster": _STRING, "user": _STRING, "namespace": _STRING,
                                     "extensions": _EXTENSIONS})
CONFIG = ("struct", "api.Config", {
    "kind": _STRING, "apiVersion": _STRING, "preferences": PREFERENCES,
    "clusters": ("map", "map[string]*api.Cluster", CLUSTER), "users": ("map", "map[string]*api.AuthInfo", AUTH_INFO),
    "contexts": ("map", "map[string]*api.Context", CONTEXT), "current-context": _STRING, "extensions": _EXTENSIONS})

# the internal field names that the file (v1) spells otherwise
_V1_NAMES = {"act-as": "as", "act-as-uid": "as-uid", "act-as-groups": "as-groups", "act-as-user-extra": "as-user-extra"}
_SECTIONS = {"clusters": "clusters", "users": "users", "contexts": "contexts"}


class Steps:
    """navigationSteps: (value, type) pairs, consumed in order."""

    def __init__(self, steps: list[tuple[str, tuple]]):
        self.steps, self.index = steps, 0

    def pop(self) -> str:
        if self.more():
            self.index += 1
            return self.steps[self.index - 1][0]
        return ""

    def more(self) -> bool:
        return len(self.steps) > self.index

    def __str__(self) -> str:
        """``%v`` of the navigationSteps struct: ``&{[{a 0xc...} {b 0xc...}] 1}`` (the types'
        pointers, as fmt prints an unexported reflect.Type)."""
        inner = " ".join(f"{{{v} 0xc{0x000200000 + 0x100 * k:09x}}}" for k, (v, _) in enumerate(self.steps))
        return f"&{{[{inner}] {self.index}}}"


def _find_name_step(parts: list[str], options: set[str]) -> str:
    """findNameStep: a map key runs up to the next part naming a field of the value type."""
    if not parts:
        return ""
    n = next((i for i, p in enumerate(parts[1:]) if p in options), -1) + 1
    return ".".join(parts[:n] if n else parts)


def navigation_steps(path: str) -> Steps:
    """newNavigationSteps."""
    steps: list[tuple[str, tuple]] = []
    parts = path.split(".")
    current: tuple = CONFIG
    i = 0
    while i < len(parts):
        if current[0] == "map":
            value = current[2]
            if value[0] == "iface":
                raise GoPanic("panic: reflect: Elem of invalid type runtime.Object")
            if value[0] != "struct":  # getPotentialTypeValues of map[string][]string's element
                raise client_error(f"{value[1]} is not of type struct")
            name = _find_name_step(parts[i:], set(value[2]))
            steps.append((name, value))
            i += len(name.split("."))
            current = value
        elif current[0] == "struct":
            name = parts[i]
            field = current[2].get(name)
            if field is None:
                # fmt cannot call String() on the steps' unexported reflect.Type: it prints pointers
                done = "[" + " ".join(f"{{{v} 0xc{0x000200000 + 0x100 * k:09x}}}" for k, (v, _) in enumerate(steps)) + "]"
                raise client_error(f"unable to parse {path} after {done} at {current[1]}")
            steps.append((name, field))
            i += 1
            current = field
        else:
            raise client_error(f"unable to parse one or more field values of {path}")
    return Steps(steps)


# -- the change ------------------------------------------------------------------------------

def parse_bool(value: str) -> bool:
    """toBool: ``strconv.ParseBool``, an empty value is false."""
    if value == "":
        return False
    if value in ("1", "t", "T", "TRUE", "true", "True"):
        return True
    if value in ("0", "f", "F", "FALSE", "false", "False"):
        return False
    raise client_error(f'strconv.ParseBool: parsing {go_quote(value)}: invalid syntax')


_B64 = {c: i for i, c in enumerate("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/")}


def go_base64_decode(s: str) -> bytes:
    """``base64.StdEncoding.DecodeString``, with Go's ``illegal base64 data at input byte N``
    (``decodeQuantum``: newlines skipped, padding required)."""
    src = s.encode("utf-8", errors="surrogateescape")
    out = bytearray()
    si = 0

    def corrupt(at: int) -> RawError:
        return client_error(f"error decoding input value: illegal base64 data at input byte {at}")

    while si < len(src):
        dbuf = [0, 0, 0, 0]
        dlen = 4
        trailing = None
        j = 0
        while j < 4:
            if si == len(src):
                if j == 0:
                    return bytes(out)
                raise corrupt(si - j)
            ch = src[si]
            si += 1
            if chr(ch) in _B64:
                dbuf[j] = _B64[chr(ch)]
                j += 1
                continue
            if ch in (10, 13):
                continue
            if ch != ord("="):
                raise corrupt(si - 1)
            if j in (0, 1):
                raise corrupt(si - 1)
            if j == 2:
                while si < len(src) and src[si] in (10, 13):
                    si += 1
                if si == len(src):
                    raise corrupt(len(src))
                if src[si] != ord("="):
                    raise corrupt(si - 1)
                si += 1
            while si < len(src) and src[si] in (10, 13):
                si += 1
            if si < len(src):
                trailing = si
            dlen = j
            break
        val = dbuf[0] << 18 | dbuf[1] << 12 | dbuf[2] << 6 | dbuf[3]
        out += bytes([(val >> 16) & 0xFF, (val >> 8) & 0xFF, val & 0xFF])[:dlen - 1]
        if trailing is not None:
            raise corrupt(trailing)
    return bytes(out)


def _go_map(value: dict | list | None, kind: str) -> str:
    """``%v`` of a map: sorted keys, a pointer's address for each struct value."""
    if kind == "map[string][]string":
        items = sorted((value or {}).items())
        return "map[" + " ".join(f"{k}:[{' '.join(v or [])}]" for k, v in items) + "]"
    names = sorted(value or {}) if isinstance(value, dict) else [e.get("name", "") for e in value or []]
    return "map[" + " ".join(f"{k}:0xc{0x000100000 + 0x100 * i:09x}" for i, k in enumerate(names)) + "]"


def _leaf(kind: tuple, value: str, raw_bytes: bool):
    """The stored form of a value set on a leaf field (None: the field's zero value)."""
    if kind == _STRING:
        return value or None
    if kind == _BOOL:
        return parse_bool(value) or None
    if kind == _BYTES:
        import base64

        data = value.encode("utf-8", errors="surrogateescape") if raw_bytes else go_base64_decode(value)
        return base64.b64encode(data).decode() if data else None
    raise AssertionError(kind)


def _set_field(body: dict, name: str, stored) -> None:
    key = _V1_NAMES.get(name, name)
    if stored is None:
        body.pop(key, None)
    else:
        body[key] = stored


def _modify_leaf(body: dict, name: str, kind: tuple, steps: Steps, value: str, unset: bool, raw_bytes: bool) -> None:
    """modifyConfig on a struct's field (``body`` holds the struct's fields by v1 name)."""
    if kind[0] == "map":  # the last step: navigation refuses a path into these maps
        key = _V1_NAMES.get(name, name)
        if unset:
            body.pop(key, None)
            return
        raise client_error(f"can't set a map to a value: {_go_map(body.get(key), kind[1])}")
    if not steps.more() and unset:
        _set_field(body, name, None)
        return
    if steps.more():
        what = {"string": "a string", "bool": "a bool", "bytes": "bytes"}.get(kind[0])
        if what:
            raise client_error(f"can't have more steps after {what}. {steps}")
    if kind[0] == "slice":
        raise client_error(f"unrecognized slice type. {kind[1]}")
    if kind[0] in ("ptr", "iface"):  # %v of the pointer: <nil> when unset (kubesim does not print a set one)
        shown = "<nil>" if body.get(_V1_NAMES.get(name, name)) is None else kind[1]
        raise GoPanic(f"panic: unrecognized type: {shown}")
    _set_field(body, name, _leaf(kind, value, raw_bytes))


def modify_config(config, steps: Steps, value: str, unset: bool, raw_bytes: bool) -> None:
    """modifyConfig, from the Config struct down (kubesim's Config for the top level, an entry's
    dict below a map key)."""
    name = steps.pop()
    field = CONFIG[2][name]
    if name in _SECTIONS:
        section = config.section(name)
        if not steps.more():
            if unset:
                section.clear()
                return
            raise client_error(f"can't set a map to a value: {_go_map(section, field[1])}")
        key = steps.pop()
        if not steps.more():
            if unset:
                section.pop(key, None)
                return
            raise client_error(f"can't set a map to a value: {_go_map(section, field[1])}")
        entry = section.get(key)
        if entry is None:
            if unset:
                raise client_error(f"current map key `{key}` is invalid")
            entry = section[key] = {}
        fname = steps.pop()
        _modify_leaf(entry, fname, field[2][2][fname], steps, value, unset, raw_bytes)
        return
    if name == "preferences":
        if not steps.more():
            if unset:
                config.preferences = {}
                return
            colors = "true" if config.preferences.get("colors") else "false"
            raise client_error('unable to locate path config.navigationStep{stepValue:"", '
                               f"stepType:reflect.Type(nil)}} under {{{colors} map[]}}")
        fname = steps.pop()
        _modify_leaf(config.preferences, fname, PREFERENCES[2][fname], steps, value, unset, raw_bytes)
        return
    if name == "extensions":
        if unset and not steps.more():
            config.extensions = None
            return
        raise client_error(f"can't set a map to a value: {_go_map({e.get('name', ''): 1 for e in config.extensions or []}, '')}")
    if name == "current-context":
        if steps.more():
            raise client_error(f"can't have more steps after a string. {steps}")
        config.current_context = "" if unset else value
        return
    # kind, apiVersion: the file is written as v1 Config whatever they say
    if steps.more():
        raise client_error(f"can't have more steps after a string. {steps}")


# -- the commands ------------------------------------------------------------------------------

SET_HELP = """Set an individual value in a kubeconfig file.

 PROPERTY_NAME is a dot delimited name where each token represents either an attribute name or a map key.  Map keys may not contain dots.

 PROPERTY_VALUE is the new value you want to set. Binary fields such as 'certificate-authority-data' expect a base64 encoded string unless the --set-raw-bytes flag is used.

 Specifying an attribute name that already exists will merge new fields on top of existing values.

Examples:
  # Set the server field on the my-cluster cluster to https://1.2.3.4
  kubesim config set clusters.my-cluster.server https://1.2.3.4
  
  # Set the certificate-authority-data field on the my-cluster cluster
  kubesim config set clusters.my-cluster.certificate-authority-data $(echo "cert_data_here" | base64 -i -)
  
  # Set the cluster field in the my-context context to my-cluster
  kubesim config set contexts.my-context.cluster my-cluster
  
  # Set the client-key-data field in the cluster-admin user using --set-raw-bytes option
  kubesim config set users.cluster-admin.client-key-data cert_data_here --set-raw-bytes=true

Options:
    --set-raw-bytes=false:
\tWhen writing a []byte PROPERTY_VALUE, write the given string directly without base64 decoding.

Usage:
  kubesim config set PROPERTY_NAME PROPERTY_VALUE [options]

Use "kubesim options" for a list of global command-line options (applies to all commands).
"""

UNSET_HELP = """Unset an individual value in a kubeconfig file.

 PROPERTY_NAME is a dot delimited name where each token represents either an attribute name or a map key.  Map keys may not contain dots.

Examples:
  # Unset the current-context
  kubesim config unset current-context
  
  # Unset namespace in foo context
  kubesim config unset contexts.foo.namespace

Usage:
  kubesim config unset PROPERTY_NAME [options]

Use "kubesim options" for a list of global command-line options (applies to all commands).
"""


def _unexpected(env, help_text: str, names: list[str]) -> RawError:
    """helpErrorf: the command's help on stdout, then the error."""
    env.stdout.write(help_text)
    return client_error(f"Unexpected args: [{' '.join(names)}]")


def _v1(config) -> dict:
    import copy

    from kubesim.kubectl.clientcmd import to_v1

    return copy.deepcopy(to_v1(config))


def config_set(f, args, env, write) -> int:
    """setOptions.complete, run."""
    from kubesim.kubectl.cmd.config import _bool_flag

    if len(args.names) != 2:
        raise _unexpected(env, SET_HELP, args.names)
    name, value = args.names
    raw = _bool_flag("set-raw-bytes", args.set_raw_bytes, "set") if args.set_raw_bytes is not None else False
    if not value:
        raise client_error("you cannot use set to unset a property")
    if not name:
        raise client_error("you must specify a property")
    config = f.kubeconfig()
    before = _v1(config)
    steps = navigation_steps(name)
    modify_config(config, steps, value, False, raw)
    if _v1(config) != before:  # ModifyConfig writes only what changed
        write(f, config)
    env.stdout.write(f"Property {go_quote(name)} set.\n")
    return 0


def config_unset(f, args, env, write) -> int:
    """unsetOptions.complete, run."""
    if len(args.names) != 1:
        raise _unexpected(env, UNSET_HELP, args.names)
    name = args.names[0]
    if not name:
        raise client_error("you must specify a property")
    config = f.kubeconfig()
    before = _v1(config)
    steps = navigation_steps(name)
    modify_config(config, steps, "", True, True)
    if _v1(config) != before or name.endswith(".-"):  # an entry's LocationOfOrigin ("-") changed
        write(f, config)
    env.stdout.write(f"Property {go_quote(name)} unset.\n")
    return 0
