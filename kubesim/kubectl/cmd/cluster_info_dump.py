"""kubectl cluster-info dump: the cluster's state and its pods' logs, for debugging.

Upstream (kubectl v1.36, k8s.io/kubectl v0.36.3): pkg/cmd/clusterinfo/clusterinfo_dump.go.
The NodeList, then for each namespace (``--namespaces``; every namespace with ``-A``; else
kube-system and the current one) its Event, ReplicationController, Service, DaemonSet,
Deployment, ReplicaSet and Pod lists, each as the typed list a client-go typed client returns
(``kind: PodList``, the list's resourceVersion, items without kind/apiVersion, ``items: null``
when empty), then each pod's init and regular containers' logs between ``==== START logs for
container C of pod NS/NAME ====`` and ``==== END ... ====`` lines (a failed request as ``Request
log error: ...``). ``-o`` defaults to json (PrintFlags WithDefaultOutput); the YAML printer
separates documents with ``---``; the name printer refuses lists. With ``--output-directory``
(``-`` or empty: standard output) each list goes to its own file (``nodes.json``,
``NS/events.json``, ``NS/replication-controllers.json``, ..., ``NS/POD/logs.txt``; the extension
``.json``/``.yaml``, ``.txt`` for other formats) and the command ends with ``Cluster info dumped
to DIR``. ``--pod-running-timeout`` is checked (> 0) but not waited on: a pod's logs are asked
for directly.
"""

from __future__ import annotations

import os

from kubesim.errors import client_error

# (file name, kind) per namespace, in the order Run lists them
_NAMESPACED = (("events", "Event"), ("replication-controllers", "ReplicationController"), ("services", "Service"),
               ("daemonsets", "DaemonSet"), ("deployments", "Deployment"), ("replicasets", "ReplicaSet"),
               ("pods", "Pod"))
# what a typed list says when kubesim does not serve the kind (nothing of it exists)
_API_VERSIONS = {"ReplicationController": "v1"}


def add_flags(p):
    p.add_argument("--output-directory", default=None,
                   help="Where to output the files.  If empty or '-' uses stdout, otherwise creates a directory "
                        "hierarchy in that directory")
    p.add_argument("--namespaces", action="append", default=None, help="A comma separated list of namespaces to dump.")
    p.add_argument("-A", "--all-namespaces", action="store_true", default=None,
                   help="If true, dump all namespaces.  If true, --namespaces is ignored.")
    p.add_argument("-o", "--output", default=None,
                   help="Output format. One of: (json, yaml, name, go-template, go-template-file, template, "
                        "templatefile, jsonpath, jsonpath-as-json, jsonpath-file).")
    p.add_argument("--pod-running-timeout", default=None,
                   help="The length of time (like 5s, 2m, or 3h, higher than zero) to wait until at least one pod "
                        "is running")


FLAGS = (("output_directory", "--output-directory"), ("namespaces", "--namespaces"),
         ("all_namespaces", "--all-namespaces"), ("output", "--output"), ("pod_running_timeout", "--pod-running-timeout"))


class _Output:
    """setupOutputWriter: standard output, or a file under the output directory."""

    def __init__(self, env, directory: str | None):
        self.env = env
        self.directory = directory if directory not in (None, "", "-") else None

    def write(self, name: str, extension: str, text: str) -> None:
        if self.directory is None:
            self.env.stdout.write(text)
            return
        full = os.path.join(self.directory, name) + extension
        _mkdir_all(os.path.dirname(full))
        try:
            with open(full, "w", encoding="utf-8") as fh:
                fh.write(text)
        except OSError as e:
            raise client_error(f"open {full}: {_go_errno(e)}") from None


def _mkdir_all(path: str) -> None:
    """os.MkdirAll, its error as Go words it: an ancestor that is a file is named
    (``mkdir /tmp/f: not a directory``)."""
    probe = path
    while probe and not os.path.exists(probe):
        probe = os.path.dirname(probe.rstrip("/")) if probe != "/" else ""
    if probe and not os.path.isdir(probe):
        raise client_error(f"mkdir {probe}: not a directory")
    try:
        os.makedirs(path, mode=0o755, exist_ok=True)
    except OSError as e:
        raise client_error(f"mkdir {e.filename or path}: {_go_errno(e)}") from None


def _go_errno(e: OSError) -> str:
    text = e.strerror or str(e)
    return text[:1].lower() + text[1:]


def typed_list(kind: str, api_version: str, items: list[dict], resource_version: str) -> dict:
    """A typed client's list: kind ``<Kind>List``, items without their own kind/apiVersion."""
    stripped = [{k: v for k, v in item.items() if k not in ("kind", "apiVersion")} for item in items]
    return {"kind": kind + "List", "apiVersion": api_version, "metadata": {"resourceVersion": resource_version},
            "items": stripped or None}


class _Printer:
    """PrintFlags' printer for ``-o`` (json by default), counting objects as the YAML printer does."""

    def __init__(self, fmt: str | None):
        from kubesim.kubectl.generate.printing import check_output

        self.fmt = fmt or "json"
        check_output(self.fmt)
        self.count = 0
        low = self.fmt.lower()
        self.extension = {"json": ".json", "yaml": ".yaml"}.get(low, ".txt")

    def text(self, obj: dict) -> str:
        from kubesim.kubectl.generate.printing import render

        self.count += 1
        low = self.fmt.lower()
        if low == "name":
            raise client_error(f"list types are not supported by name printing: *{_go_type(obj)}")
        if low == "yaml":
            return ("---\n" if self.count > 1 else "") + render(obj, "yaml", "", False)
        return render(obj, low if low == "json" else self.fmt, "", False)


def _go_type(obj: dict) -> str:
    version = obj["apiVersion"].rsplit("/", 1)[-1]
    return f"{version}.{obj['kind']}"


def _logs(client, pod: dict) -> str:
    """The pod's init then regular containers' logs, each between START and END lines."""
    from kubesim.api.core.podlogs import PodLogOptions
    from kubesim.errors import StatusError

    md, spec = pod["metadata"], pod.get("spec") or {}
    out = []
    for c in (spec.get("initContainers") or []) + (spec.get("containers") or []):
        where = f"container {c['name']} of pod {md['namespace']}/{md['name']}"
        out.append(f"==== START logs for {where} ====\n")
        try:
            out.append(client.pod_log(md["namespace"], md["name"], PodLogOptions(container=c["name"])))
        except StatusError as e:
            out.append(f"Request log error: {e.message}\n")
        out.append(f"==== END logs for {where} ====\n")
    return "".join(out)


def run(f, args, env) -> int:
    from kubesim.api import kinds
    from kubesim.kubectl.cmd.util import duration_flag

    printer = _Printer(args.output)
    timeout = duration_flag(args.pod_running_timeout or "20s", "--pod-running-timeout", "cluster-info dump")
    if timeout <= 0:
        raise client_error("--pod-running-timeout must be higher than zero")
    out = _Output(env, args.output_directory)

    def dump(client, kind: str, namespace: str | None, name: str) -> list[dict]:
        try:
            info = kinds.by_kind(kind)
        except KeyError:
            info = None
        items = client.list(info, namespace) if info is not None else []
        api_version = info.api_version if info is not None else _API_VERSIONS[kind]
        out.write(name, printer.extension, printer.text(typed_list(kind, api_version, items,
                                                                    client.resource_version())))
        return items

    with f.connect() as client:
        dump(client, "Node", None, "nodes")
        if args.all_namespaces:
            namespaces = [ns["metadata"]["name"] for ns in client.list(kinds.by_kind("Namespace"))]
        elif args.namespaces:
            namespaces = [n for raw in args.namespaces for n in _split_csv(raw)]
        else:
            namespaces = ["kube-system", f.namespace()]
        for namespace in namespaces:
            for name, kind in _NAMESPACED:
                items = dump(client, kind, namespace, f"{namespace}/{name}")
            for pod in items:  # the Pods, listed last
                out.write(f"{namespace}/{pod['metadata']['name']}/logs", ".txt", _logs(client, pod))
    if out.directory is not None:
        env.stdout.write(f"Cluster info dumped to {args.output_directory}\n")
    return 0


def _split_csv(value: str) -> list[str]:
    """pflag's StringSlice: the value read as one CSV record."""
    import csv

    if value == "":
        return []
    try:
        return next(csv.reader([value], strict=True))
    except csv.Error:
        return value.split(",")
