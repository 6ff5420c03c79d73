"""kubectl version [--client] [-o json|yaml]: the client's version, kustomize's and the server's.

Upstream (kubectl v1.36, k8s.io/kubectl v0.36.3): pkg/cmd/version/version.go (the Version
struct, Validate's errors, extra arguments refused only when the server is asked, the three
lines or the JSON/YAML document) and k8s.io/apimachinery/pkg/version/types.go (Info's fields).
kubesim prints the kubectl release it emulates as the client (v1.36.4, with that release's
build information) and the emulated v1.35 API server as the server; kubesim's own version comes
last, as a line of its own (``kubesimVersion`` in JSON and YAML), so nothing kubectl prints moves.
"""

from __future__ import annotations

CLIENT = {"major": "1", "minor": "36", "gitVersion": "v1.36.4",
          "gitCommit": "bb826b1d48562f110659e64e8ec444327433db95", "gitTreeState": "clean",
          "buildDate": "2026-08-20T03:09:25Z", "goVersion": "go1.26.5", "compiler": "gc"}
KUSTOMIZE = "v5.8.1"


def add_flags(p):
    p.add_argument("args", nargs="*")
    p.add_argument("--client", nargs="?", const="true", default="false",
                   help="If true, shows client version only (no server required).")
    p.add_argument("-o", "--output", default="", help="One of 'yaml' or 'json'.")


def _platform() -> str:
    """Go's GOOS/GOARCH of the machine kubesim runs on."""
    import platform
    import sys

    os_name = {"win32": "windows", "cygwin": "windows"}.get(sys.platform, sys.platform)
    machine = platform.machine().lower()
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64", "i386": "386",
            "i686": "386", "armv7l": "arm", "ppc64le": "ppc64le", "s390x": "s390x"}.get(machine, machine)
    return f"{os_name}/{arch}"


def server_info() -> dict:
    """What the emulated API server's /version returns."""
    from kubesim import SERVER_VERSION

    major, minor = SERVER_VERSION.lstrip("v").split(".")[:2]
    return {"major": major, "minor": minor, "emulationMajor": major, "emulationMinor": minor,
            "minCompatibilityMajor": major, "minCompatibilityMinor": str(int(minor) - 1),
            "gitVersion": SERVER_VERSION, "gitCommit": "0" * 40, "gitTreeState": "clean",
            "buildDate": "1970-01-01T00:00:00Z", "goVersion": "go1.25.5", "compiler": "gc",
            "platform": "linux/amd64"}


def run(f, args, env) -> int:
    import json

    from kubesim import __version__
    from kubesim.errors import UsageError
    from kubesim.kubectl.cmd.util import bool_flag_value

    client_only = bool_flag_value(args.client, "--client", "version")
    if args.args and not client_only:
        raise UsageError(f"extra arguments: [{' '.join(args.args)}]")
    if args.output not in ("", "yaml", "json"):
        raise UsageError("--output must be 'yaml' or 'json'")
    info = {"clientVersion": {**CLIENT, "platform": _platform()}, "kustomizeVersion": KUSTOMIZE}
    if not client_only:
        info["serverVersion"] = server_info()
    if args.output == "":
        out = f"Client Version: {CLIENT['gitVersion']}\nKustomize Version: {KUSTOMIZE}\n"
        if not client_only:
            out += f"Server Version: {info['serverVersion']['gitVersion']}\n"
        env.stdout.write(out + f"kubesim Version: {__version__}\n")
    elif args.output == "json":
        info["kubesimVersion"] = __version__
        env.stdout.write(json.dumps(info, indent=2) + "\n")
    else:
        from kubesim.codec.dump import to_yaml

        info["kubesimVersion"] = __version__
        env.stdout.write(to_yaml(_sorted(info)) + "\n")
    return 0


def _sorted(value):
    if isinstance(value, dict):
        return {k: _sorted(value[k]) for k in sorted(value)}
    return value
