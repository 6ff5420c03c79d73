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
from typing import TextIO

from kubesim.api.record import Record
from kubesim.errors import KubesimError, UsageError


class Environment(Record):
    """What a command may touch besides the state: streams, environment variables, tty-ness
    (the process's, unless given)."""

    __slots__ = ("cwd", "stderr", "stdin", "stdout", "vars")

    def __init__(self, stdin: TextIO | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None,
                 vars: dict | None = None, cwd: str | None = None):
        self.stdin = sys.stdin if stdin is None else stdin
        self.stdout = sys.stdout if stdout is None else stdout
        self.stderr = sys.stderr if stderr is None else stderr
        self.vars = dict(os.environ) if vars is None else vars
        self.cwd = cwd

    @property
    def is_tty(self) -> bool:
        try:
            return self.stdout.isatty() and self.vars.get("NO_COLOR") is None
        except (AttributeError, ValueError):
            return False


_BAD_VALUE = r"argument (\S+): (strconv\.\w+: parsing .*)"
_PARSING = r'parsing ("(?:[^"\\]|\\.)*"):'


def _terminal_columns() -> int:
    """The terminal's width as ``shutil.get_terminal_size`` finds it ($COLUMNS, else stdout's
    terminal, else 80), without importing shutil."""
    try:
        columns = int(os.environ["COLUMNS"])
    except (KeyError, ValueError):
        columns = 0
    if columns <= 0:
        try:
            columns = os.get_terminal_size(sys.__stdout__.fileno()).columns
        except (AttributeError, ValueError, OSError):
            columns = 0
    return columns or 80


class Parser(argparse.ArgumentParser):
    """argparse with kubectl's error style: ``error: ...`` and exit code 1, no usage dump."""

    def _get_formatter(self):
        # argparse builds a formatter for every add_argument (to check its metavar), whose
        # default width imports shutil (~2 ms a command): the width, as argparse sets it
        return self.formatter_class(prog=self.prog, width=_terminal_columns() - 2)

    def error(self, message: str):  # type: ignore[override]
        import re  # (only on an error: a plain command does not pay for it)

        bad = re.fullmatch(_BAD_VALUE, message, re.DOTALL)
        if bad:  # a Go-parsed flag value (kubectl/cmd/util.go_int): pflag's wording
            flag, detail = bad.group(1).replace("/", ", "), bad.group(2)
            value = re.search(_PARSING, detail)
            message = f'invalid argument {value.group(1) if value else ""} for "{flag}" flag: {detail}'
        elif message.startswith("unrecognized arguments: "):
            extra = message[len("unrecognized arguments: "):].split()
            flag = next((a for a in extra if a.startswith("-")), None)
            if flag and not flag.startswith("--") and len(flag) > 1:
                message = f"unknown shorthand flag: '{flag[1]}' in {flag}"  # pflag's words
            elif flag:
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
    g.add_argument("--context", default=d, metavar="NAME", help="the kubeconfig context to use")
    g.add_argument("--cluster", default=d, metavar="NAME", help="the kubeconfig cluster to use")
    g.add_argument("--kubeconfig", default=d, metavar="FILE",
                   help="the kubeconfig file to use (default: the state's, DIR/kubeconfig)")
    g.add_argument("-v", "--v", dest="verbosity", type=int, default=argparse.SUPPRESS if suppress else 0,
                   metavar="N", help="log level (0-10): klog lines on stderr")
    g.add_argument("--request-timeout", default=d, metavar="DURATION",
                   help="The length of time to wait before giving up on a single server request (simulated "
                        "time; it ends a get --watch). Non-zero values should contain a corresponding time unit "
                        "(e.g. 1s, 2m, 3h). A value of zero means don't timeout requests.")
    g.add_argument("--as", dest="as_user", default=d, metavar="USER",
                   help="Username to impersonate for the operation. User could be a regular user or a service "
                        "account in a namespace.")
    g.add_argument("--as-group", dest="as_group", action="append", default=d, metavar="GROUP",
                   help="Group to impersonate for the operation, this flag can be repeated to specify multiple "
                        "groups.")
    g.add_argument("--as-uid", dest="as_uid", default=d, metavar="UID", help="UID to impersonate for the operation.")


_GLOBAL_VALUE_FLAGS = ("--state", "-n", "--namespace", "-v", "--v", "--request-timeout", "--context", "--cluster",
                       "--kubeconfig", "--as", "--as-group", "--as-uid")


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


def _available_verbs() -> dict[str, str]:
    from kubesim.cli.verbs import VERBS

    return {name: v.help for name, v in VERBS.items()}


def verb_parser(name: str) -> Parser:
    """The parser of one verb, global flags included (they may come before or after it)."""
    from kubesim.cli.verbs import VERBS, module_of

    verb = VERBS.get(name)
    if verb is None:
        from kubesim.cli.help import unknown_command

        raise UsageError(unknown_command(name, VERBS))
    p = Parser(prog=f"kubesim {name}", description=verb.help)
    _globals(p, suppress=False)
    getattr(module_of(verb), verb.flags)(p)
    return p


def _split_dashdash(argv: list[str]) -> tuple[list[str], list[str]]:
    if "--" in argv:
        i = argv.index("--")
        return argv[:i], argv[i + 1:]
    return argv, []


def _explicit_defaults(parser: argparse.ArgumentParser, argv: list[str]) -> list[str]:
    """pflag's flags with a no-option default (``--watch``, ``--dry-run``: argparse's
    ``nargs="?"`` with a ``const``) take a value only as ``--flag=value``: a bare one is written
    ``--flag=<default>`` so that argparse never takes the next word as its value
    (``kubesim logs -f POD``, ``kubesim get -w pods``)."""
    defaults = {s: str(a.const) for a in parser._actions if a.nargs == "?" and a.option_strings
                and a.const is not None for s in a.option_strings}
    return [f"{a}={defaults[a]}" if a in defaults else a for a in argv]


def main(argv: list[str] | None = None, env: Environment | None = None) -> int:
    env = env or Environment()
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] in ("__complete", "__completeNoDesc"):  # the shell completion scripts' requests
        from kubesim.cli.completion import complete

        return complete(argv[1:], env, descriptions=argv[0] == "__complete")
    argv, after = _split_dashdash(argv)
    try:
        i = find_verb(argv)
        if i is None:
            top = top_parser()
            if any(a in ("-h", "--help") for a in argv) or not argv:
                from kubesim.cli.help import top_help

                env.stdout.write(top_help(_available_verbs()))
                return 0
            top.parse_args(argv)
            raise UsageError("a command is required\nRun 'kubesim --help' for usage.")
        name = argv[i]
        if name == "help":  # cobra's help command: ``kubesim help [VERB]``
            rest = [a for a in argv[i + 1:] if not a.startswith("-")]
            if rest and rest[0] not in _available_verbs():
                from kubesim.cli.help import unknown_topic

                env.stderr.write(unknown_topic(rest[0], _available_verbs()))
                return 0
            return main(rest[:1] + ["--help"], env)
        parser = verb_parser(name)
        if any(a in ("-h", "--help") for a in argv):
            from kubesim.cli.help import verb_help
            from kubesim.cli.verbs import VERBS

            words = [a for a in argv[i + 1:] if not a.startswith("-")]
            env.stdout.write(verb_help(name, parser, VERBS[name].help, words))
            return 0
        args = parser.parse_intermixed_args(_explicit_defaults(parser, argv[:i] + argv[i + 1:]))
        args.verb = name
        args.after_dashdash = after
        from kubesim.cli.session import Factory
        from kubesim.cli.verbs import VERBS, module_of

        verb = VERBS[name]
        return getattr(module_of(verb), verb.run)(Factory(args, env), args, env) or 0
    except KubesimError as e:
        text = str(e)
        env.stderr.write(text + "\n" if getattr(e, "multiline_error", False) else text.rstrip("\n") + "\n")
        return e.exit_code
    except SystemExit as e:  # argparse's --help
        return int(e.code or 0) if not isinstance(e.code, str) else 1
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 130
    except Exception as e:  # noqa: BLE001 - the last line of defence: never a traceback
        return _unexpected(e, argv, env)
    finally:
        # the custom kinds this command resolved were its state's: forget them (an in-process
        # caller's next command, or code reading the registry, must not see them)
        kinds = sys.modules.get("kubesim.api.kinds")
        if kinds is not None:
            kinds.REGISTRY.attach_custom(None)


def _unexpected(e: Exception, argv: list[str], env: Environment) -> int:
    """An exception no layer turned into kubectl's text. The command's transaction has been
    rolled back by then (the session closes on the way out), so the state is as it was; the
    user sees one line, and the stack only when asking for it (``--v=6`` or more), as kubectl
    keeps its details for higher verbosity."""
    from kubesim.clock import TimeRangeError

    if isinstance(e, TimeRangeError):
        env.stderr.write(f"error: {e}\n")
        return 1
    if _verbosity(argv) >= 6:
        import traceback

        env.stderr.write("".join(traceback.format_exception(e)))
    env.stderr.write(f"error: internal error: {type(e).__name__}: {e}\n"
                     "(a kubesim bug: nothing was changed; run the command again with --v=6 for the stack)\n")
    return 1


def _verbosity(argv: list[str]) -> int:
    """The ``-v``/``--v`` level in ``argv``, read without the parser (which may be what failed)."""
    level = 0
    for i, a in enumerate(argv):
        value = None
        for flag in ("--v=", "-v="):
            if a.startswith(flag):
                value = a[len(flag):]
        if a in ("--v", "-v") and i + 1 < len(argv):
            value = argv[i + 1]
        if value is not None and value.isdigit():
            level = int(value)
    return level


# The cyclic collector's thresholds for a command's process (gc.set_threshold; CPython's are
# 700, 10, 10). A command decodes and builds objects by the hundred thousand (a bulk apply: a
# million) that are acyclic JSON-shaped dicts, freed by their reference counts; with the
# default thresholds the collector walks all of them again every few thousand allocations
# (a bulk apply on 5,000 nodes made ten full collections, a fifth of its time), finding
# nothing to collect. Collections still run, a hundred times less often.
GC_THRESHOLDS = (10_000, 50, 100)


def run() -> None:
    """The ``kubesim`` program: ``main`` with the process's collector tuned (``GC_THRESHOLDS``),
    and no last full collection at exit (everything alive is moved out of its reach, gc.freeze:
    the process's memory goes back to the system whole)."""
    import gc

    gc.set_threshold(*GC_THRESHOLDS)
    try:
        code = main()
    except KeyboardInterrupt:  # Ctrl-C before main's own handler is in place: nothing to undo
        code = 130
    try:
        sys.stdout.flush()
    except BrokenPipeError:
        pass
    gc.freeze()
    sys.exit(code)
