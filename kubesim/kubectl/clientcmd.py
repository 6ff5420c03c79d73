"""The kubeconfig: loading, checking, resolving and writing it, as client-go's clientcmd does.

A kubesim state directory holds one kubeconfig, ``<state>/kubeconfig``, shaped as kubeadm's
``admin.conf`` (``apiVersion: v1``, ``kind: Config``, named clusters, users and contexts, a
current context). A state that has none behaves as if it held kubeadm's default one: cluster
``kubernetes``, user ``kubernetes-admin``, context ``kubernetes-admin@kubernetes``. The file is
written only when a command changes it, so a one-cluster state stays exactly as it was.

Upstream (client-go v0.35 ``tools/clientcmd``): ``api/types.go`` and ``api/v1/types.go`` (the
shapes, and the Go field order ``-o json`` prints), ``api/v1/conversion.go`` (lists become maps
keyed by name: duplicate names are refused and lists come back sorted), ``loader.go`` (an empty
or missing file is an empty config; ``error loading config file``), ``client_config.go`` and
``validation.go`` (``--context`` and ``--cluster`` overrides, ``Error in configuration: ...``),
``api/helpers.go`` (MinifyConfig, RedactSecrets: ``DATA+OMITTED`` and ``REDACTED``),
``config.go`` (ModifyConfig writes the file; with several files, each changed entry goes to the
file it came from, a new one to the default file; ``writeCurrentContext``: a new current context
to the default file, clearing it in the first file that sets it; ``writePreferences``: the first
file whose preferences differ, even one that does not exist yet), ``loader.go`` (``$KUBECONFIG``: a ``:``-separated list, empty entries and
repeats dropped, missing files skipped; the first file that has an entry wins, whole, and the
first non-empty current-context) and ``PathOptions.GetDefaultFilename`` (the only file, else the
first that exists, else the last named).
"""

from __future__ import annotations

import os

from kubesim.api.gofmt import go_json_kind
from kubesim.errors import RawError, client_error

FILE_NAME = "kubeconfig"
DEFAULT_CLUSTER = "kubernetes"
DEFAULT_USER = "kubernetes-admin"
DEFAULT_CONTEXT = "kubernetes-admin@kubernetes"
DEFAULT_SERVER = "https://172.30.1.2:6443"  # the controlplane node's InternalIP, kubeadm's port
# kubesim has no certificates; these say so where kubeadm writes its PEM data
_PLACEHOLDER_PEM = {
    "certificate-authority-data": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCmt1YmVzaW06IG5vIHJlYWwgY2VydGlmaWNhdGUKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=",
    "client-certificate-data": "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURS0tLS0tCmt1YmVzaW06IG5vIHJlYWwgY2VydGlmaWNhdGUKLS0tLS1FTkQgQ0VSVElGSUNBVEUtLS0tLQo=",
    "client-key-data": "LS0tLS1CRUdJTiBQUklWQVRFIEtFWS0tLS0tCmt1YmVzaW06IG5vIHJlYWwga2V5Ci0tLS0tRU5EIFBSSVZBVEUgS0VZLS0tLS0K",
}

# Go struct field order of client-go's v1 types (what ``config view -o json`` prints)
_CLUSTER_FIELDS = ("server", "tls-server-name", "insecure-skip-tls-verify", "certificate-authority",
                   "certificate-authority-data", "proxy-url", "disable-compression", "extensions")
_CONTEXT_FIELDS = ("cluster", "user", "namespace", "extensions")
_USER_FIELDS = ("client-certificate", "client-certificate-data", "client-key", "client-key-data", "token",
                "tokenFile", "as", "as-uid", "as-groups", "as-user-extra", "username", "password",
                "auth-provider", "exec", "extensions")
_KNOWN = {"cluster": set(_CLUSTER_FIELDS), "context": set(_CONTEXT_FIELDS), "user": set(_USER_FIELDS)}
_DATA_FIELDS = {"certificate-authority-data", "client-certificate-data", "client-key-data"}
_SECRET_FIELDS = {"token", "password"}
_STRING_FIELDS = {
    "cluster": ("Cluster", ("server", "tls-server-name", "certificate-authority", "proxy-url")),
    "context": ("Context", ("cluster", "user", "namespace")),
    "user": ("AuthInfo", ("client-certificate", "client-key", "token", "tokenFile", "as", "username",
                          "password")),
}
_SECTIONS = (("clusters", "cluster", "NamedCluster", "Cluster"),
             ("contexts", "context", "NamedContext", "Context"),
             ("users", "user", "NamedAuthInfo", "AuthInfo"))


class Config:
    """The internal form (clientcmdapi.Config): each section a map keyed by name. (A plain class:
    every command loads the kubeconfig, and a dataclass costs its start-up a millisecond.)"""

    def __init__(self, clusters: dict | None = None, contexts: dict | None = None, users: dict | None = None,
                 current_context: str = "", preferences: dict | None = None, extensions: list | None = None):
        self.clusters: dict[str, dict] = clusters if clusters is not None else {}
        self.contexts: dict[str, dict] = contexts if contexts is not None else {}
        self.users: dict[str, dict] = users if users is not None else {}
        self.current_context = current_context
        self.preferences: dict = preferences if preferences is not None else {}
        self.extensions = extensions
        # LocationOfOrigin: the file each entry came from, (section, name) -> path, when the
        # config was merged from several files ($KUBECONFIG)
        self.origins: dict[tuple[str, str], str] = {}

    def section(self, plural: str) -> dict[str, dict]:
        return getattr(self, plural)


def default_config() -> Config:
    """kubeadm's admin.conf for kubesim's default cluster."""
    c = Config()
    add_cluster(c, DEFAULT_CLUSTER, DEFAULT_USER, DEFAULT_CONTEXT)
    c.current_context = DEFAULT_CONTEXT
    return c


def add_cluster(c: Config, cluster: str, user: str, context: str) -> None:
    """Entries for a kubesim cluster, as kubeadm writes them (existing entries are kept)."""
    c.clusters.setdefault(cluster, {"certificate-authority-data": _PLACEHOLDER_PEM["certificate-authority-data"],
                                    "server": DEFAULT_SERVER})
    c.users.setdefault(user, {"client-certificate-data": _PLACEHOLDER_PEM["client-certificate-data"],
                              "client-key-data": _PLACEHOLDER_PEM["client-key-data"]})
    c.contexts.setdefault(context, {"cluster": cluster, "user": user})


def path_in(state_dir: str) -> str:
    return os.path.join(state_dir, FILE_NAME)


# -- loading ------------------------------------------------------------------------------

def _load_error(path: str, detail: str) -> RawError:
    return client_error(f'error loading config file "{path}": {detail}')


def _unmarshal(path: str, value, struct: str, field_path: str, go_type: str) -> RawError:
    return _load_error(path, f"json: cannot unmarshal {go_json_kind(value)} into Go struct field {struct}.{field_path} "
                             f"of type {go_type}")


def parse(path: str, text: str) -> Config:
    """A kubeconfig's text as clientcmd's loader reads it (``path`` as the user named it)."""
    from kubesim.codec.load import decode_yaml
    from kubesim.errors import ParseError

    try:
        docs = decode_yaml(path, text)
    except ParseError as e:
        raise _load_error(path, e.detail) from None
    doc = docs[0] if docs else None
    if doc is None:
        return Config()
    if not isinstance(doc, dict):
        raise _load_error(path, "couldn't get version/kind; json parse error: json: cannot unmarshal "
                                f"{go_json_kind(doc)} into Go value of type struct {{ APIVersion string "
                                '"json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }')
    c = Config()
    cur = doc.get("current-context")
    if cur is not None and not isinstance(cur, str):
        raise _unmarshal(path, cur, "Config", "current-context", "string")
    c.current_context = cur or ""
    for plural, single, named, struct in _SECTIONS:
        items = doc.get(plural)
        if items is None:
            continue
        if not isinstance(items, list):
            raise _unmarshal(path, items, "Config", plural, f"[]v1.{named}")
        out = c.section(plural)
        for item in items:
            if item is None:
                item = {}
            if not isinstance(item, dict):
                raise _unmarshal(path, item, "Config", plural, f"v1.{named}")
            name = item.get("name")
            if name is not None and not isinstance(name, str):
                raise _unmarshal(path, name, named, f"{plural}.name", "string")
            body = item.get(single)
            if body is None:
                body = {}
            if not isinstance(body, dict):
                raise _unmarshal(path, body, named, f"{plural}.{single}", f"v1.{struct}")
            go_struct, strings = _STRING_FIELDS[single]
            for k in strings:
                if body.get(k) is not None and not isinstance(body[k], str):
                    raise _unmarshal(path, body[k], go_struct, f"{plural}.{single}.{k}", "string")
            name = name or ""
            if name in out:
                internal = {"cluster": "Cluster", "context": "Context", "user": "AuthInfo"}[single]
                raise _load_error(path, f"error converting *[]{named} into *map[string]*api.{internal}: "
                                        f'duplicate name "{name}" in list')
            known = _KNOWN[single]  # as Go's decoder, kubectl drops fields it does not know
            out[name] = {k: v for k, v in body.items() if v is not None and k in known}
    c.preferences = doc.get("preferences") or {}
    c.extensions = doc.get("extensions")
    return c


def load(path: str, missing_ok: bool = True) -> Config | None:
    """The file's config; None when there is no file (an empty config for kubectl)."""
    try:
        with open(path, "rb") as fh:
            raw = fh.read()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as e:
        raise _load_error(path, e.strerror or str(e)) from None
    return parse(path, raw.decode("utf-8", errors="replace"))


def precedence(value: str) -> list[str]:
    """``filepath.SplitList($KUBECONFIG)``, deduplicated, empty entries dropped."""
    files: list[str] = []
    for p in value.split(os.pathsep):
        if p and p not in files:
            files.append(p)
    return files


def default_filename(files: list[str]) -> str:
    """PathOptions.GetDefaultFilename (what ``kubectl config`` uses): the only file, else the first
    that exists, else the last."""
    if len(files) == 1:
        return files[0]
    for p in files:
        if os.path.exists(p):
            return p
    return files[-1] if files else ""


def load_merged(files: list[str]) -> Config:
    """ClientConfigLoadingRules.Load: the files merged, each entry from the first file that has
    it (whole, not field by field), the first non-empty current-context and preferences."""
    merged = Config()
    for path in files:
        c = load(path)
        if c is None:
            continue
        for plural, _, _, _ in _SECTIONS:
            into = merged.section(plural)
            for name, body in c.section(plural).items():
                if name not in into:
                    into[name] = body
                    merged.origins[(plural, name)] = path
        if not merged.current_context and c.current_context:
            merged.current_context = c.current_context
        if not merged.preferences and c.preferences:
            merged.preferences = c.preferences
        if merged.extensions is None and c.extensions:
            merged.extensions = c.extensions
    return merged


def modify_config(files: list[str], starting: Config, new: Config) -> None:
    """ModifyConfig over several files: what changed goes where it came from."""
    import copy

    def read(path: str) -> Config:
        return load(path) or Config()

    if to_v1(starting) == to_v1(new) and starting.preferences == new.preferences:
        return
    if starting.current_context != new.current_context:  # writeCurrentContext
        if new.current_context:
            target = default_filename(files)
        else:  # clearing: the first file that sets it
            target = next((p for p in files if os.path.exists(p) and read(p).current_context), None)
            if target is None:
                raise client_error("no config found to write context")
        c = read(target)
        c.current_context = new.current_context
        save(target, c)
    if starting.preferences != new.preferences:  # writePreferences: the first file that differs
        for path in files:
            c = read(path)
            if c.preferences != new.preferences:
                c.preferences = copy.deepcopy(new.preferences)
                save(path, c)
                break
    for plural, _, _, _ in _SECTIONS:
        before, after = starting.section(plural), new.section(plural)
        for name, body in after.items():
            if name not in before or before[name] != body:
                target = new.origins.get((plural, name)) or starting.origins.get((plural, name)) \
                    or default_filename(files)
                c = read(target)
                c.section(plural)[name] = copy.deepcopy(body)
                save(target, c)
    for plural, _, _, _ in _SECTIONS:
        for name in starting.section(plural):
            if name not in new.section(plural):
                target = starting.origins.get((plural, name)) or default_filename(files)
                c = read(target)
                c.section(plural).pop(name, None)
                save(target, c)


# -- writing ------------------------------------------------------------------------------

def to_v1(c: Config) -> dict:
    """The external (v1) form: lists sorted by name, as clientcmd's conversion writes them."""
    out: dict = {"apiVersion": "v1", "kind": "Config"}
    required = {"cluster": {"server": ""}, "context": {"cluster": "", "user": ""}, "user": {}}
    for plural, single, _, _ in _SECTIONS:
        sec = c.section(plural)
        out[plural] = [{"name": n, single: required[single] | sec[n]} for n in sorted(sec)] or None
    out["current-context"] = c.current_context
    if c.preferences:
        out["preferences"] = c.preferences
    if c.extensions:
        out["extensions"] = c.extensions
    return out


def to_yaml(c: Config) -> str:
    from kubesim.codec.dump import to_yaml as dump

    return dump(to_v1(c))


def to_json(c: Config) -> str:
    """``-o json``: Go's field order, four-space indent."""
    import json

    def ordered(body: dict, fields: tuple) -> dict:
        return {k: body[k] for k in fields if k in body} | {k: v for k, v in body.items() if k not in fields}

    v1 = to_v1(c)
    out: dict = {"kind": "Config", "apiVersion": "v1"}
    if c.preferences:
        out["preferences"] = c.preferences
    for plural, single, fields in (("clusters", "cluster", _CLUSTER_FIELDS), ("users", "user", _USER_FIELDS),
                                   ("contexts", "context", _CONTEXT_FIELDS)):
        out[plural] = [{"name": e["name"], single: ordered(e[single], fields)} for e in v1[plural] or []] or None
    out["current-context"] = c.current_context
    if c.extensions:
        out["extensions"] = c.extensions
    return json.dumps(out, indent=4, ensure_ascii=False) + "\n"


def save(path: str, c: Config) -> None:
    """Write the whole file at once (a reader never sees half of it); a link at ``path`` is
    replaced, not written through."""
    tmp = f"{path}.tmp{os.getpid()}"
    try:
        os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
        # a new file, never through a link, readable by its owner only (it holds credentials),
        # as clientcmd writes kubeconfigs with mode 0600
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(to_yaml(c))
        os.replace(tmp, path)
    except OSError as e:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise client_error(f"open {path}: {e.strerror or e}") from None


def redacted(c: Config) -> Config:
    """RedactSecrets: byte data shown as ``DATA+OMITTED``, tokens and passwords as ``REDACTED``."""
    out = Config(current_context=c.current_context, preferences=c.preferences, extensions=c.extensions)
    for plural, _, _, _ in _SECTIONS:
        for name, body in c.section(plural).items():
            out.section(plural)[name] = {k: ("DATA+OMITTED" if k in _DATA_FIELDS and v else
                                             "REDACTED" if k in _SECRET_FIELDS and v else v)
                                         for k, v in body.items()}
    return out


def relative_path(path: str, base_dir: str) -> str:
    """RelativizePathWithNoBacksteps: a path under the kubeconfig's directory is written
    relative to it, any other stays absolute."""
    rel = os.path.relpath(path, base_dir)
    return path if rel.startswith("..") else rel


def flattened(c: Config, base_dir: str) -> Config:
    """FlattenConfig: the certificate and key files a kubeconfig names, read into its ``-data``
    fields (a relative path from the file's directory), so the output stands alone."""
    import base64

    out = Config(current_context=c.current_context, preferences=c.preferences, extensions=c.extensions,
                 contexts=dict(c.contexts))
    for plural, fields in (("users", ("client-certificate", "client-key")), ("clusters", ("certificate-authority",))):
        for name, body in c.section(plural).items():
            body = dict(body)
            for k in fields:
                if not body.get(k):
                    continue
                if body.get(f"{k}-data"):
                    raise client_error("cannot have values for both path and contents")
                path = os.path.join(base_dir, body[k])
                try:
                    with open(path, "rb") as fh:
                        body[f"{k}-data"] = base64.b64encode(fh.read()).decode()
                except OSError as e:
                    raise client_error(f"open {path}: {(e.strerror or str(e)).lower()}") from None
                del body[k]
            out.section(plural)[name] = body
    return out


def minified(c: Config, context: str | None = None) -> Config:
    """MinifyConfig: the current context, its cluster and its user only."""
    name = context or c.current_context
    if not name:
        raise client_error("current-context must exist in order to minify")
    ctx = c.contexts.get(name)
    if ctx is None:
        raise client_error(f"cannot locate context {name}")
    out = Config(current_context=name, preferences=c.preferences)
    out.contexts[name] = ctx
    if ctx.get("cluster", "") in c.clusters:
        out.clusters[ctx["cluster"]] = c.clusters[ctx["cluster"]]
    if ctx.get("user", "") in c.users:
        out.users[ctx["user"]] = c.users[ctx["user"]]
    return out


# -- resolving a command's cluster ----------------------------------------------------------

class Target:
    """Where one command goes: a kubeconfig cluster name (None: no cluster, kubectl's
    localhost:8080), its server, and the context's namespace."""

    __slots__ = ("cluster", "context", "namespace", "server")

    def __init__(self, cluster: str | None, server: str, namespace: str, context: str):
        self.cluster, self.server, self.namespace, self.context = cluster, server, namespace, context


def resolve(c: Config, context: str | None = None, cluster: str | None = None) -> Target:
    """clientcmd's DirectClientConfig with the ``--context`` and ``--cluster`` overrides."""
    name = context or c.current_context
    errs = []
    ctx = c.contexts.get(name) if name else None
    if name and ctx is None:
        errs.append(f"context was not found for specified context: {name}")
    ctx = ctx or {}
    cl = cluster or ctx.get("cluster") or ""
    if cluster and cluster not in c.clusters:
        errs.append(f'no server found for cluster "{cluster}"')
    if errs:
        if len(errs) == 1:
            raise RawError("Error in configuration: " + errs[0])
        raise RawError("Error in configuration: \n" + "".join(f"* {e}\n" for e in errs).rstrip("\n"))
    entry = c.clusters.get(cl)
    ns = ctx.get("namespace") or "default"
    if entry is None or not entry.get("server"):
        return Target(None, "localhost:8080", ns, name)
    return Target(cl, entry["server"], ns, name)


def connection_refused(server: str) -> RawError:
    """What kubectl prints when nothing answers at the cluster's address."""
    host = server.split("://", 1)[-1].rstrip("/")
    return RawError(f"The connection to the server {host} was refused - did you specify the right host or port?")
