"""The command line: ``main(argv, env) -> exit code``, with an injectable Environment.

Flags follow kubectl's (cobra/pflag) conventions: global flags before or after the verb,
``-o wide``/``-owide``/``-o=wide``/``--output=wide``, ``--`` ending flags. The parser is
stdlib ``argparse`` driven by small per-verb tables: kubesim's start-up budget is a few tens of
milliseconds (kubectl itself takes ~35 ms), and Typer (which imports pydantic) alone costs more
than that — see README, "Why not Typer".

Errors are mapped to exit codes in exactly one place, ``main``.
"""

from __future__ import annotations

import argparse
import os
import sys
from dataclasses import dataclass, field
from typing import TextIO

from kubesim.errors import KubesimError, UsageError


@dataclass
class Environment:
    """What a command may touch besides the state: streams, environment variables, tty-ness."""

    stdin: TextIO = field(default_factory=lambda: sys.stdin)
    stdout: TextIO = field(default_factory=lambda: sys.stdout)
    stderr: TextIO = field(default_factory=lambda: sys.stderr)
    vars: dict = field(default_factory=lambda: dict(os.environ))
    cwd: str | None = None

    @property
    def is_tty(self) -> bool:
        try:
            return self.stdout.isatty() and self.vars.get("NO_COLOR") is None
        except (AttributeError, ValueError):
            return False


class Parser(argparse.ArgumentParser):
    """argparse with kubectl's error style: ``error: ...`` and exit code 1, no usage dump."""

    def error(self, message: str):  # type: ignore[override]
        if message.startswith("unrecognized arguments: "):
            extra = message[len("unrecognized arguments: "):].split()
            flag = next((a for a in extra if a.startswith("-")), None)
            if flag:
                message = f"unknown flag: {flag.split('=')[0]}"
            else:
                message = f"unexpected arguments: {' '.join(extra)}"
        verb = self.prog.split()[1] if len(self.prog.split()) > 1 else ""
        hint = f"\nSee 'kubesim {verb} --help' for usage." if verb else "\nSee 'kubesim --help' for usage."
        raise UsageError(message + hint)


def _globals(p: argparse.ArgumentParser, suppress: bool = False) -> None:
    d = argparse.SUPPRESS if suppress else None
    g = p.add_argument_group("global options")
    g.add_argument("--state", default=d, metavar="DIR",
                   help="state directory (default: $KUBESIM_STATE, else ./state)")
    g.add_argument("-n", "--namespace", default=d, help="namespace for this request")
    g.add_argument("-v", "--v", dest="verbosity", type=int, default=argparse.SUPPRESS if suppress else 0,
                   metavar="N", help="log level (0-10): klog lines on stderr")


def _add_output(p, wide=True, extra: str = ""):
    p.add_argument("-o", "--output", default=None,
                   help="output format: json|yaml|name" + ("|wide" if wide else "") + "|jsonpath=...|custom-columns=..." + extra)


_GLOBAL_VALUE_FLAGS = ("--state", "-n", "--namespace", "-v", "--v")


def find_verb(argv: list[str]) -> int | None:
    """Index of the verb in argv: the first word that is neither a flag nor a global flag's value."""
    skip = False
    for i, a in enumerate(argv):
        if skip:
            skip = False
            continue
        if a in _GLOBAL_VALUE_FLAGS:
            skip = True
            continue
        if a.startswith("-"):
            continue
        return i
    return None


def top_parser() -> Parser:
    top = Parser(prog="kubesim", add_help=True,
                 description="kubesim: a Kubernetes cluster emulator you drive like kubectl. "
                             "No cluster needed: the state lives in a directory (--state).",
                 formatter_class=argparse.RawDescriptionHelpFormatter,
                 epilog="Commands:\n" + "\n".join(f"  {name:<17} {h}" for name, h in _available_verbs().items()) +
                        "\n\nExamples:\n"
                        "  kubesim apply -f manifests/quickstart/\n"
                        "  kubesim get pods -o wide\n"
                        "  kubesim describe node node01\n"
                        "  kubesim taint nodes node01 dedicated=gpu:NoSchedule\n\n"
                        "Use \"kubesim <command> --help\" for more information about a given command.")
    top.add_argument("command", nargs="?", help=argparse.SUPPRESS)
    _globals(top, suppress=False)
    return top


VERB_HELP = {
    "apply": "Apply a configuration to a resource by file name or stdin",
    "create": "Create a resource from a file or from stdin, or a deployment, namespace, priorityclass or poddisruptionbudget",
    "get": "Display one or many resources",
    "describe": "Show details of a specific resource or group of resources",
    "delete": "Delete resources by file names, stdin, resources and names, or by resources and label selector",
    "label": "Update the labels on a resource",
    "annotate": "Update the annotations on a resource",
    "taint": "Update the taints on one or more nodes",
    "cordon": "Mark node as unschedulable",
    "uncordon": "Mark node as schedulable",
    "api-resources": "Print the supported API resources",
    "explain-schedule": "kubesim's own: every scheduler plugin's verdict and score for a pod, on every node",
    "cluster": "kubesim's own: init, reset or inspect the simulated cluster",
    "advance": "kubesim's own: move the simulated clock forward and settle",
    "version": "Print the client and simulated server version",
}


def _available_verbs() -> dict[str, str]:
    """Verb → help: the ones declared here plus those whose module declares its own flags."""
    from kubesim.cli.commands import EXTRA_HELP, VERBS

    out = dict(VERB_HELP)
    for name, help_ in EXTRA_HELP.items():
        module = VERBS[name][0]
        import importlib.util

        if importlib.util.find_spec(module) is not None:
            out[name] = help_
    return out


def verb_parser(name: str) -> Parser:
    """The parser of one verb, global flags included (they may come before or after it)."""
    from kubesim.cli import commands

    help_ = VERB_HELP.get(name) or commands.EXTRA_HELP.get(name)
    if help_ is None:
        raise UsageError(f'unknown command "{name}" for "kubesim"\nRun \'kubesim --help\' for usage.')
    p = Parser(prog=f"kubesim {name}", description=help_)
    _globals(p, suppress=False)
    if name in _VERB_ARGS:
        _VERB_ARGS[name](p)
    elif not commands.add_args(name, p):
        raise UsageError(f'unknown command "{name}" for "kubesim"\nRun \'kubesim --help\' for usage.')
    return p


def _apply_args(p):
    p.add_argument("-f", "--filename", action="append", required=True, help="file, directory or - for stdin")
    p.add_argument("-R", "--recursive", action="store_true", help="process the directory used in -f recursively")
    _add_output(p, wide=False)


def _create_args(p):
    p.add_argument("what", nargs="*", help="deployment|namespace|priorityclass|poddisruptionbudget NAME")
    p.add_argument("-f", "--filename", action="append", help="file, directory or - for stdin")
    p.add_argument("-R", "--recursive", action="store_true")
    _add_output(p, wide=False)
    from kubesim.cli.generate import create_generator_args

    create_generator_args(p)  # create deployment|namespace|priorityclass


def _get_args(p):
    p.add_argument("args", nargs="*", metavar="TYPE[.VERSION][.GROUP] [NAME ...]")
    p.add_argument("-A", "--all-namespaces", action="store_true", help="list across all namespaces")
    _add_output(p)
    p.add_argument("-l", "--selector", help="label selector (e.g. -l key1=value1,key2 in (a,b))")
    p.add_argument("--field-selector", help="field selector (e.g. --field-selector spec.nodeName=node01)")
    p.add_argument("--show-labels", action="store_true", help="show all labels as the last column")
    p.add_argument("-L", "--label-columns", action="append", default=[], help="label keys to show as columns")
    p.add_argument("--sort-by", help="JSONPath to sort the list by (e.g. .metadata.name)")
    p.add_argument("--no-headers", action="store_true", help="don't print headers")
    p.add_argument("--show-kind", action="store_true", help="list the resource type for the requested object(s)")
    p.add_argument("-f", "--filename", action="append", help="identify the resources by the files that define them")
    p.add_argument("--raw", help="raw URI to request, e.g. /api/v1/nodes/node01/proxy/configz")


def _describe_args(p):
    p.add_argument("args", nargs="+", metavar="TYPE [NAME_PREFIX]")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("-l", "--selector")


def _delete_args(p):
    p.add_argument("args", nargs="*", metavar="TYPE [NAME ...]")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-l", "--selector")
    p.add_argument("--all", action="store_true", help="delete all resources of the type in the namespace")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("--grace-period", type=int, default=-1)
    p.add_argument("--now", action="store_true", help="same as --grace-period=1")
    p.add_argument("--force", action="store_true", help="remove immediately (with --grace-period=0)")
    p.add_argument("--ignore-not-found", action="store_true")
    p.add_argument("--cascade", default="background", help="background|foreground|orphan")
    p.add_argument("--wait", nargs="?", const="true", default=None, metavar="true|false",
                   help="accepted as kubectl does; kubesim returns at once either way (a pod "
                        "shows Terminating for its grace period)")
    p.add_argument("-o", "--output", default=None, help="name")


def _meta_args(p):
    p.add_argument("args", nargs="+", metavar="TYPE NAME KEY=VAL ... | KEY-")
    p.add_argument("--overwrite", action="store_true", help="allow existing values to be replaced")
    p.add_argument("-l", "--selector")
    p.add_argument("--all", action="store_true")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("--list", action="store_true", help="list the current values")
    _add_output(p, wide=False)


def _taint_args(p):
    p.add_argument("args", nargs="+", metavar="nodes NAME KEY[=VALUE]:EFFECT ... | KEY[:EFFECT]-")
    p.add_argument("--overwrite", action="store_true")
    p.add_argument("-l", "--selector")
    p.add_argument("--all", action="store_true")
    _add_output(p, wide=False)


def _cordon_args(p):
    p.add_argument("nodes", nargs="*")
    p.add_argument("-l", "--selector")


def _api_resources_args(p):
    p.add_argument("--namespaced", default=None, choices=["true", "false"])
    p.add_argument("-o", "--output", default=None, help="wide|name")
    p.add_argument("--no-headers", action="store_true")


def _cluster_args(p):
    p.add_argument("action", choices=["init", "reset", "info"])
    p.add_argument("--nodes", type=int, default=2, help="number of worker nodes (init)")
    p.add_argument("--cpu", default=None, help="CPU capacity per node, e.g. 4 (init)")
    p.add_argument("--memory", default=None, help="memory capacity per node, e.g. 8Gi (init)")
    p.add_argument("--zones", default=None, help="number of zones, or a comma-separated list (init)")
    p.add_argument("--empty", action="store_true", help="no nodes at all (init)")


def _advance_args(p):
    p.add_argument("duration", help="e.g. 30s, 5m, 1h30m")


def _explain_args(p):
    p.add_argument("pod", nargs="?", help="the pod whose last scheduling attempt to explain")
    p.add_argument("-f", "--filename", action="append",
                   help="what-if: evaluate the pod(s) in FILE (- for stdin) against the cluster; stores nothing")
    p.add_argument("-o", "--output", default=None, help="json|yaml (default: tables)")


def _version_args(p):
    p.add_argument("-o", "--output", default=None)


_VERB_ARGS = {
    "apply": _apply_args, "create": _create_args, "get": _get_args, "describe": _describe_args,
    "delete": _delete_args, "label": _meta_args, "annotate": _meta_args, "taint": _taint_args,
    "cordon": _cordon_args, "uncordon": _cordon_args, "api-resources": _api_resources_args,
    "cluster": _cluster_args, "advance": _advance_args, "version": _version_args,
    "explain-schedule": _explain_args,
}


def _split_dashdash(argv: list[str]) -> tuple[list[str], list[str]]:
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def main(argv: list[str] | None = None, env: Environment | None = None) -> int:
    env = env or Environment()
    argv = list(sys.argv[1:] if argv is None else argv)
    argv, after = _split_dashdash(argv)
    try:
        i = find_verb(argv)
        if i is None:
            top = top_parser()
            if any(a in ("-h", "--help") for a in argv) or not argv:
                top.print_help(env.stdout)
                return 0
            top.parse_args(argv)
            raise UsageError("a command is required\nRun 'kubesim --help' for usage.")
        name = argv[i]
        parser = verb_parser(name)
        args = parser.parse_intermixed_args(argv[:i] + argv[i + 1:])
        args.verb = name
        args.after_dashdash = after
        from kubesim.cli import commands

        return commands.dispatch(args, env) or 0
    except KubesimError as e:
        env.stderr.write(str(e).rstrip("\n") + "\n")
        return e.exit_code
    except SystemExit as e:  # argparse's --help
        return int(e.code or 0) if not isinstance(e.code, str) else 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130


def run() -> None:
    code = main()
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    sys.exit(code)
