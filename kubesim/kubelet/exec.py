"""The kubelet's exec (pods/exec, RunInContainer): a command run in a running container,
answered from what kubesim knows about the container — its environment, the files it mounts,
its name — with the network tools delegated to kubesim.network by the control plane.

Upstream: pkg/kubelet/kubelet_pods.go (GetExec: ``container not found ("c")`` when the
container does not run; makeEnvironmentVariables and getServiceEnvVarMap: the container's
``env``/``envFrom`` then, for every Service of the pod's namespace (with ``enableServiceLinks``)
and the ``kubernetes`` Service, pkg/kubelet/envvars FromServices' ``<NAME>_SERVICE_HOST``,
``_SERVICE_PORT[_<PORT NAME>]``, ``_PORT``, ``_PORT_<P>_<PROTO>[_PROTO|_PORT|_ADDR]``, for the
Services that existed when the container started; managedHostsFileContent for /etc/hosts),
the projected ``kube-api-access-*`` volume (token, ca.crt, namespace), ConfigMap and Secret
volumes (items, subPath).

Commands: ``env``/``printenv``, ``cat``, ``ls``, ``hostname``, ``sleep``, ``echo``, ``true``,
``false``, ``sh -c`` of those joined by ``;``, ``&&``, ``||``; the network tools (``nslookup``,
``wget``, ``curl``, ``dig``, ``host``, ``nc``) through ``network``. Anything else:
``kubesim does not simulate "X"``, exit 126 — never a silent success. Tools an image does not
ship (curl in busybox, wget in nginx) fail as the runtime fails them.
"""

from __future__ import annotations

import base64
import json
import re
import shlex
from dataclasses import dataclass, field

from kubesim.kubelet.images import image_repository

NOT_SIMULATED = 126
SA_DIR = "/var/run/secrets/kubernetes.io/serviceaccount"
PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
NETWORK_TOOLS = ("nslookup", "wget", "curl", "dig", "host", "nc")
_BUSYBOX = {"busybox", "docker.io/library/busybox", "registry.k8s.io/busybox", "gcr.io/google-containers/busybox",
            "k8s.gcr.io/busybox", "alpine"}

# images whose nslookup is bind-utils' (the rest: busybox's)
BIND_UTILS = {"registry.k8s.io/e2e-test-images/jessie-dnsutils", "gcr.io/kubernetes-e2e-test-images/dnsutils",
              "k8s.gcr.io/e2e-test-images/jessie-dnsutils", "tutum/dnsutils", "nicolaka/netshoot", "infoblox/dnstools"}


def nslookup_flavour(container: dict) -> str:
    return "bind" if image_repository(container.get("image") or "") in BIND_UTILS else "busybox"


@dataclass
class ExecContext:
    pod: dict
    container: dict
    get: object                          # get(kind, namespace, name) -> dict | None
    services: list = field(default_factory=list)
    extra_files: dict = field(default_factory=dict)   # path -> text the control plane adds (/etc/resolv.conf)
    network: object = None               # network(argv) -> (stdout, stderr, code)
    elapsed: float = 0.0                 # seconds the command spent sleeping


def container_started(pod: dict, name: str) -> str | None:
    for cs in (pod.get("status") or {}).get("containerStatuses") or ():
        if cs.get("name") == name:
            return ((cs.get("state") or {}).get("running") or {}).get("startedAt")
    return None


def make_env_variable_name(s: str) -> str:
    return s.replace("-", "_").upper()


def service_env(services: list[dict]) -> list[tuple[str, str]]:
    """envvars.FromServices."""
    out = []
    for svc in services:
        spec = svc.get("spec") or {}
        ip = spec.get("clusterIP")
        if not ip or ip == "None" or not spec.get("ports"):
            continue
        prefix = make_env_variable_name(svc["metadata"]["name"])
        out.append((prefix + "_SERVICE_HOST", ip))
        out.append((prefix + "_SERVICE_PORT", str(spec["ports"][0].get("port"))))
        for sp in spec["ports"]:
            if sp.get("name"):
                out.append((prefix + "_SERVICE_PORT_" + make_env_variable_name(sp["name"]), str(sp.get("port"))))
        for i, sp in enumerate(spec["ports"]):
            proto = sp.get("protocol") or "TCP"
            hp = f"[{ip}]:{sp.get('port')}" if ":" in ip else f"{ip}:{sp.get('port')}"  # net.JoinHostPort
            if i == 0:
                out.append((prefix + "_PORT", f"{proto.lower()}://{hp}"))
            pp = f"{prefix}_PORT_{sp.get('port')}_{proto.upper()}"
            out += [(pp, f"{proto.lower()}://{hp}"), (pp + "_PROTO", proto.lower()),
                    (pp + "_PORT", str(sp.get("port"))), (pp + "_ADDR", ip)]
    return out


def environment(ctx: ExecContext) -> list[tuple[str, str]]:
    """The container's process environment, in kubesim's order: PATH, HOSTNAME, the container's
    env (resolved), the Service variables (getServiceEnvVarMap), HOME."""
    from kubesim.clock import parse_timestamp
    from kubesim.kubelet.kubelet_pods import with_resolved_env

    pod, c = ctx.pod, ctx.container
    md = pod.get("metadata") or {}
    ns = md.get("namespace", "default")
    started = parse_timestamp(container_started(pod, c.get("name", "")))
    links = (pod.get("spec") or {}).get("enableServiceLinks", True) is not False
    chosen: dict[str, dict] = {}
    for svc in sorted(ctx.services, key=lambda s: (s["metadata"].get("namespace", ""), s["metadata"]["name"])):
        created = parse_timestamp(svc["metadata"].get("creationTimestamp"))
        if started is not None and created is not None and created > started:
            continue
        name = svc["metadata"]["name"]
        if svc["metadata"].get("namespace") == "default" and name == "kubernetes":
            chosen.setdefault(name, svc)
        elif svc["metadata"].get("namespace") == ns and links:
            chosen[name] = svc
    env: dict[str, str] = {"PATH": PATH, "HOSTNAME": hostname(pod)}
    resolved = with_resolved_env(pod, c, ctx.get)
    for e in resolved.get("env") or ():
        if isinstance(e, dict) and e.get("name"):
            env[e["name"]] = _expand(str(e.get("value") or ""), env)
    for k, v in service_env([chosen[k] for k in sorted(chosen)]):
        env.setdefault(k, v)
    env.setdefault("HOME", "/root")
    return list(env.items())


def _expand(value: str, env: dict) -> str:
    """``$(VAR)`` references to variables defined before (expansion.MappingFuncFor)."""
    return re.sub(r"\$\(([A-Za-z_][A-Za-z0-9_]*)\)", lambda m: env.get(m.group(1), m.group(0)), value)


def hostname(pod: dict) -> str:
    """The pod's hostname: its node's on the host network, else spec.hostname or its name
    (kubelet_pods.go GeneratePodHostNameAndDomain)."""
    spec = pod.get("spec") or {}
    if spec.get("hostNetwork"):
        return spec.get("nodeName") or ""
    return spec.get("hostname") or (pod.get("metadata") or {}).get("name", "")


def hosts_file(pod: dict) -> str:
    """managedHostsFileContent."""
    spec = pod.get("spec") or {}
    ip = (pod.get("status") or {}).get("podIP") or ""
    lines = ["# Kubernetes-managed hosts file.", "127.0.0.1\tlocalhost", "::1\tlocalhost ip6-localhost ip6-loopback",
             "fe00::0\tip6-localnet", "fe00::0\tip6-mcastprefix", "fe00::1\tip6-allnodes", "fe00::2\tip6-allrouters"]
    name = hostname(pod)
    if spec.get("subdomain"):
        ns = (pod.get("metadata") or {}).get("namespace", "default")
        lines.append(f"{ip}\t{name}.{spec['subdomain']}.{ns}.svc.cluster.local\t{name}")
    elif ip:
        lines.append(f"{ip}\t{name}")
    for ha in spec.get("hostAliases") or ():
        lines.append("")
        lines.append("# Entries added by HostAliases.")
        lines.append(f"{ha.get('ip', '')}\t" + "\t".join(ha.get("hostnames") or ()))
    return "\n".join(lines) + "\n"


def _token(pod: dict) -> str:
    """A service-account token's shape (a JWT; its signature is not a real one)."""
    md = pod.get("metadata") or {}
    spec = pod.get("spec") or {}

    def b64(obj) -> str:
        return base64.urlsafe_b64encode(json.dumps(obj, separators=(",", ":")).encode()).decode().rstrip("=")

    claims = {"aud": ["https://kubernetes.default.svc.cluster.local"],
              "iss": "https://kubernetes.default.svc.cluster.local",
              "kubernetes.io": {"namespace": md.get("namespace", "default"),
                                "node": {"name": spec.get("nodeName", "")},
                                "pod": {"name": md.get("name", ""), "uid": md.get("uid", "")},
                                "serviceaccount": {"name": spec.get("serviceAccountName") or "default"}},
              "sub": f"system:serviceaccount:{md.get('namespace', 'default')}:{spec.get('serviceAccountName') or 'default'}"}
    return b64({"alg": "RS256", "kid": "kubesim"}) + "." + b64(claims) + ".kubesim-signature"


def files(ctx: ExecContext) -> dict[str, str]:
    """Every file kubesim knows in the container: path -> text."""
    from kubesim.kubelet.kubelet_pods import _volume_payload

    pod, c = ctx.pod, ctx.container
    out = dict(ctx.extra_files)
    out["/etc/hosts"] = hosts_file(pod)
    out["/etc/hostname"] = hostname(pod) + "\n"
    repo = image_repository(c.get("image") or "")
    from kubesim.kubelet.serving import IMAGE_FILES

    out.update(IMAGE_FILES.get(repo, {}))
    volumes = {v.get("name"): v for v in (pod.get("spec") or {}).get("volumes") or () if isinstance(v, dict)}
    ns = (pod.get("metadata") or {}).get("namespace", "default")
    for m in c.get("volumeMounts") or ():
        vol = volumes.get((m or {}).get("name"))
        if vol is None:
            continue
        payload: dict[str, str] = {}
        if any(isinstance(vol.get(k), dict) for k in ("configMap", "secret", "projected")):
            payload = _volume_payload(pod, vol, ctx.get)
        for s in (vol.get("projected") or {}).get("sources") or ():
            if isinstance((s or {}).get("serviceAccountToken"), dict):
                payload[s["serviceAccountToken"].get("path", "token")] = _token(pod)
            for item in ((s or {}).get("downwardAPI") or {}).get("items") or ():
                if ((item.get("fieldRef") or {}).get("fieldPath")) == "metadata.namespace":
                    payload[item.get("path", "")] = ns
        base = (m.get("mountPath") or "").rstrip("/")
        if m.get("subPath"):
            if m["subPath"] in payload:
                out[base] = payload[m["subPath"]]
            continue
        for rel, text in payload.items():
            out[f"{base}/{rel}"] = text
        if not payload:
            out.setdefault(base + "/", "")  # a mounted directory kubesim knows, empty
    return out


def _busybox(c: dict) -> bool:
    return image_repository(c.get("image") or "") in _BUSYBOX


def not_simulated(what: str) -> tuple[str, str, int]:
    return "", f'kubesim does not simulate "{what}"\n', NOT_SIMULATED


def run(ctx: ExecContext, argv: list[str]) -> tuple[str, str, int]:
    """Run ``argv`` in the container: (stdout, stderr, exit code)."""
    if not argv:
        return "", "", 0
    name = argv[0].rsplit("/", 1)[-1]
    args = argv[1:]
    from kubesim.kubelet.imagefiles import lookup_error

    why = lookup_error(argv[0], ctx.container.get("image") or "")
    if why is not None:  # what the image does not ship (kubesim.kubelet.imagefiles) fails as runc fails it
        return f"OCI runtime exec failed: exec failed: unable to start container process: {why}\n", "", 126
    if name in ("sh", "bash", "ash", "dash") and args[:1] == ["-c"] and len(args) >= 2:
        return _script(ctx, args[1])
    if name in NETWORK_TOOLS and ctx.network is not None:
        return ctx.network(argv)
    if name in ("env", "printenv"):
        env = environment(ctx)
        if args:
            values = dict(env)
            found = [values[a] for a in args if a in values]
            return "".join(v + "\n" for v in found), "", 0 if len(found) == len(args) else 1
        return "".join(f"{k}={v}\n" for k, v in env), "", 0
    if name == "hostname":
        return hostname(ctx.pod) + "\n", "", 0
    if name == "echo":
        newline = True
        if args[:1] == ["-n"]:
            newline, args = False, args[1:]
        return " ".join(args) + ("\n" if newline else ""), "", 0
    if name == "true":
        return "", "", 0
    if name == "false":
        return "", "", 1
    if name == "sleep":
        if not args or not re.fullmatch(r"(\d+(\.\d+)?[smhd]?|infinity)", args[0]):
            return "", f"sleep: invalid number '{args[0] if args else ''}'\n", 1
        from kubesim.kubelet.shell import FOREVER, parse_sleep

        seconds = parse_sleep(args[0])
        if seconds is not None and seconds != FOREVER:
            ctx.elapsed += seconds  # (sleep infinity returns at once: kubesim cannot wait forever)
        return "", "", 0
    if name == "cat":
        return _cat(ctx, [a for a in args if not a.startswith("-")])
    if name == "ls":
        return _ls(ctx, args)
    return not_simulated(name)


def _missing(ctx: ExecContext, tool: str, path: str) -> str:
    if _busybox(ctx.container):
        return f"{tool}: can't open '{path}': No such file or directory\n" if tool == "cat" \
            else f"{tool}: {path}: No such file or directory\n"
    return f"{tool}: {path}: No such file or directory\n" if tool == "cat" \
        else f"{tool}: cannot access '{path}': No such file or directory\n"


def _known_dirs(known: dict[str, str]) -> set[str]:
    dirs = set()
    for p in known:
        parts = p.rstrip("/").split("/")
        for i in range(1, len(parts)):
            dirs.add("/".join(parts[:i]) or "/")
    return dirs


def _cat(ctx: ExecContext, paths: list[str]) -> tuple[str, str, int]:
    known = files(ctx)
    dirs = _known_dirs(known)
    out, err, code = [], [], 0
    for p in paths:
        norm = p.rstrip("/") if p != "/" else p
        if norm in known:
            out.append(known[norm])
        elif norm in dirs or norm + "/" in known:
            err.append("cat: read error: Is a directory\n" if _busybox(ctx.container) else f"cat: {p}: Is a directory\n")
            code = 1
        elif any(norm.startswith(d.rstrip("/") + "/") for d in _mounts(ctx)):
            err.append(_missing(ctx, "cat", p))
            code = 1
        else:
            return not_simulated(f"cat {p}")
    return "".join(out), "".join(err), code


def _mounts(ctx: ExecContext) -> list[str]:
    return [m.get("mountPath", "") for m in ctx.container.get("volumeMounts") or () if m.get("mountPath")]


def _ls(ctx: ExecContext, args: list[str]) -> tuple[str, str, int]:
    flags = "".join(a[1:] for a in args if a.startswith("-"))
    paths = [a for a in args if not a.startswith("-")] or ["."]
    known = files(ctx)
    dirs = _known_dirs(known) | {p.rstrip("/") for p in known if p.endswith("/")}
    out, err, code = [], [], 0
    for p in paths:
        norm = p.rstrip("/") or "/"
        if norm in known:
            out.append(p)
            continue
        if norm in dirs:
            entries = sorted({k[len(norm) + 1:].split("/")[0] for k in known
                              if k.startswith(norm + "/") and k[len(norm) + 1:].strip("/")})
            if "a" in flags:
                entries = [".", ".."] + entries
            if len(paths) > 1:
                out.append(f"{p}:")
            out.extend(entries)
            continue
        if any(norm.startswith(d.rstrip("/") + "/") for d in _mounts(ctx)):
            err.append(_missing(ctx, "ls", p))
            code = 1 if _busybox(ctx.container) else 2
            continue
        return not_simulated(f"ls {p}")
    return "".join(line + "\n" for line in out), "".join(err), code


def _script(ctx: ExecContext, script: str) -> tuple[str, str, int]:
    """``sh -c``: simple commands joined by ``;``, ``&&`` and ``||`` (no pipes, no redirections,
    no variables but ``$VAR`` of the environment)."""
    if re.search(r"[|<>`]|\$\(", script.replace("||", "")):
        return not_simulated(f"sh -c {script}")
    env = dict(environment(ctx))
    out, err, code = [], [], 0
    parts = re.split(r"(&&|\|\||;|\n)", script)
    op = ";"
    for part in parts:
        if part in ("&&", "||", ";", "\n"):
            op = ";" if part == "\n" else part
            continue
        if not part.strip():
            continue
        if (op == "&&" and code != 0) or (op == "||" and code == 0):
            continue
        try:
            words = shlex.split(part)
        except ValueError:
            return "", "sh: syntax error: unterminated quoted string\n", 2
        words = [re.sub(r"\$\{?([A-Za-z_][A-Za-z0-9_]*)\}?", lambda m: env.get(m.group(1), ""), w) for w in words]
        if words and words[0] == "exit":
            code = int(words[1]) if len(words) > 1 and words[1].isdigit() else code
            break
        o, e, code = run(ctx, words)
        if code == NOT_SIMULATED and e.startswith("kubesim does not simulate"):
            return "".join(out) + o, "".join(err) + e, code
        out.append(o)
        err.append(e)
    return "".join(out), "".join(err), code
