"""kubectl diff -f: what ``apply -f`` would change, as a unified diff of the live objects and the
objects the API server would store.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/diff/diff.go — each object's LIVE version (as
stored, managedFields left out) and MERGED version (the API server's dry-run of apply's
three-way merge patch; a dry-run create for an object that does not exist yet) are written as
YAML to the files ``<group.>version.Kind.namespace.name`` of two temporary directories
``LIVE-<n>`` and ``MERGED-<n>``, then ``diff -u -N`` (or ``$KUBECTL_EXTERNAL_DIFF``, its extra
words kept when they are alphanumeric, ``-`` or ``=``) compares the two directories: its output
is kubectl's, its exit status kubectl's (1 when something differs); a status above 1 is
``failed to run "diff"``.

kubesim makes the dry run by running apply in a transaction it then rolls back: the objects are
defaulted and admitted as the API server would, nothing is stored, and a dry run does not move
an object's resourceVersion. The directories' numbers come from the seeded random source, and
the files carry the simulated time, so ``KUBESIM_SEED`` and ``KUBESIM_NOW`` make the output
repeat. ``--server-side`` makes MERGED the server's dry run of server-side apply (the manager
``kubectl`` unless ``--field-manager``, ``--force-conflicts`` as apply's); ``--prune`` is not
simulated.
"""

from __future__ import annotations

import copy

from kubesim.errors import UsageError


def add_flags(p):
    from kubesim.kubectl.generate.flags import bool_flag

    p.add_argument("extra", nargs="*", help=argparse_suppress())
    p.add_argument("-f", "--filename", action="append", default=None,
                   help="Filename, directory, or URL to files contains the configuration to diff")
    p.add_argument("-R", "--recursive", action="store_true",
                   help="Process the directory used in -f, --filename recursively.")
    from kubesim.kubectl.kustomize import add_flag

    add_flag(p)
    p.add_argument("-l", "--selector", default="",
                   help="Selector (label query) to filter on, supports '=', '==', '!=', 'in', 'notin'.")
    bool_flag(p, "--show-managed-fields", dest="show_managed_fields",
              help="If true, include managed fields in the diff.")
    p.add_argument("--field-manager", default=None,
                   help="Name of the manager used to track field ownership.")
    p.add_argument("--server-side", action="store_true",
                   help="If true, apply runs in the server instead of the client.")
    p.add_argument("--force-conflicts", action="store_true",
                   help="If true, server-side apply will force the changes against conflicts.")
    p.add_argument("--concurrency", default="1", help="Number of objects to process in parallel when diffing "
                                                     "against the live version.")


def argparse_suppress():
    import argparse

    return argparse.SUPPRESS


def object_file_name(info, namespace: str, name: str) -> str:
    """InfoObject.Name: ``<group.>version.Kind.namespace.name``."""
    group = f"{info.group}." if info.group else ""
    return f"{group}{info.version}.{info.kind}.{namespace}.{name}"


def run(f, args, env) -> int:
    """diff.go's ``CheckDiffErr``: every error exits 2 (1 means "there are differences")."""
    from kubesim.errors import KubesimError

    try:
        return _run(f, args, env)
    except KubesimError as e:
        e.exit_code = max(e.exit_code, 1) + 1
        raise


def _run(f, args, env) -> int:
    from kubesim.kubectl.cmd.apply import load_documents
    from kubesim.kubectl.resource import prepare

    if args.extra:
        raise UsageError(f"Unexpected args: [{' '.join(args.extra)}]\nSee 'kubesim diff -h' for help and examples")
    from kubesim.kubectl.kustomize import validate

    validate(args)
    docs = load_documents(args, env, "diff")
    prepared = prepare(docs, f.namespace_flag, "getting", explicit_namespace=f.explicit_namespace, applying=True,
                       server_side=args.server_side)
    if args.selector:
        from kubesim.api.selectors import parse_label_selector

        try:
            sel = parse_label_selector(args.selector)
        except ValueError as e:
            raise UsageError(str(e)) from None
        prepared = [p for p in prepared if sel.matches((p.obj.get("metadata") or {}).get("labels"))]
    with f.connect(commit=False) as client:  # everything here is a dry run: rolled back
        ssa = (args.field_manager or "kubectl", args.force_conflicts) if args.server_side else None
        versions = [_versions(client, p, ssa) for p in prepared if p.info.served]
        now = client.now()
        rng = client.rng
        live_dir, merged_dir = f"LIVE-{rng.randrange(1 << 32)}", f"MERGED-{rng.randrange(1 << 32)}"
    return _run_diff(env, versions, live_dir, merged_dir, now, args.show_managed_fields)


def _versions(client, p, ssa: tuple[str, bool] | None = None) -> tuple[str, dict | None, dict]:
    """(file name, LIVE, MERGED) of one manifest; ``ssa``: (manager, force) of a server-side
    apply's dry run (diff.go's ``--server-side``), else client-side apply's."""
    from kubesim.kubectl.apply import apply

    live = client.find(p.info, p.namespace, p.name)
    live = copy.deepcopy(live) if live is not None else None
    if ssa is not None:
        client.apply(p.info, p.obj, field_manager=ssa[0], force=ssa[1])
    else:
        apply(client, [p])
    merged = copy.deepcopy(client.get(p.info, p.namespace, p.name))
    md = merged.setdefault("metadata", {})
    if live is not None:
        md["resourceVersion"] = live["metadata"].get("resourceVersion")
    else:
        md.pop("resourceVersion", None)  # a dry-run create is not stored
    return object_file_name(p.info, p.namespace, p.name), live, merged


def _run_diff(env, versions, live_dir: str, merged_dir: str, now: float, show_managed_fields) -> int:
    import os
    import shutil
    import subprocess

    from kubesim.errors import client_error
    from kubesim.printers.output import to_yaml

    base = env.vars.get("TMPDIR") or "/tmp"  # Go's os.TempDir
    dirs = [os.path.join(base, live_dir), os.path.join(base, merged_dir)]
    try:
        for d in dirs:
            os.makedirs(d, mode=0o700)
        for name, live, merged in versions:
            for d, obj in zip(dirs, (live, merged), strict=True):
                path = os.path.join(d, name)
                with open(path, "w") as fh:
                    if obj is not None:
                        if not show_managed_fields:
                            (obj.get("metadata") or {}).pop("managedFields", None)
                        fh.write(to_yaml(obj))
                os.chmod(path, 0o700)
                os.utime(path, ns=(int(now * 1e9), int(now * 1e9)))
        program, argv = _diff_command(env.vars, dirs)
        env.stdout.flush()
        try:
            done = subprocess.run([program, *argv], check=False, capture_output=True, text=True, env=env.vars)
        except OSError:
            raise client_error(f'failed to run "{program}": exec: "{program}": executable file not found in '
                               "$PATH") from None
        env.stdout.write(done.stdout)
        env.stderr.write(done.stderr)
        if done.returncode > 1:
            raise client_error(f'failed to run "{program}": exit status {done.returncode}')
        return done.returncode
    finally:
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)


def _diff_command(variables: dict, dirs: list[str]) -> tuple[str, list[str]]:
    """DiffProgram.getCommand: ``diff -u -N``, or ``$KUBECTL_EXTERNAL_DIFF`` with its safe words."""
    import re

    external = variables.get("KUBECTL_EXTERNAL_DIFF", "")
    if external:
        words = external.split(" ")
        return words[0], [*dirs, *(w for w in words[1:] if re.fullmatch(r"[a-zA-Z0-9-=]+", w))]
    return "diff", ["-u", "-N", *dirs]
