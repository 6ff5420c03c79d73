"""What kubectl's verbs share: ``--dry-run`` (cmdutil.GetDryRunStrategy), the value of a pflag
bool flag (strconv.ParseBool), ``--record``'s change-cause, the result lines and ``-o`` of the
verbs that change objects, kubectl's aggregate errors, and the klog warning lines it prints.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go (GetDryRunStrategy, whose
deprecation warnings name their lines in that file, CheckErr), genericclioptions' RecordFlags
and PrintFlags, spf13/pflag's ``bool.go`` and the klog header
(``Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg``).
"""

from __future__ import annotations

import os

from kubesim.api.gofmt import go_parse_bool
from kubesim.errors import KubesimError, RawError, UsageError, client_error


def klog_warning(env, where: str, msg: str) -> None:
    """A klog warning line (kubectl's klog.Warning), as kubectl writes it on stderr."""
    import os
    import time

    t = time.time()
    tm = time.gmtime(t)
    micro = int((t - int(t)) * 1_000_000)
    env.stderr.write(f"W{tm.tm_mon:02d}{tm.tm_mday:02d} {tm.tm_hour:02d}:{tm.tm_min:02d}:{tm.tm_sec:02d}."
                     f"{micro:06d} {os.getpid():7d} {where}] {msg}\n")


def dry_run_strategy(value: str | None, env) -> str:
    """cmdutil.GetDryRunStrategy: ``none``, ``client`` or ``server``. ``value`` is the flag's
    text, ``unchanged`` for a bare ``--dry-run``; the boolean spellings and the bare flag are
    deprecated, with kubectl's warnings."""
    if value is None:
        return "none"
    b = go_parse_bool(value)
    if b is not None:
        klog_warning(env, "helpers.go:733" if b else "helpers.go:736",
                     f"--dry-run={value} is deprecated (boolean value) and can be replaced with "
                     f"--dry-run={'client' if b else 'none'}.")
        return "client" if b else "none"
    if value == "unchanged":
        klog_warning(env, "helpers.go:719", "--dry-run is deprecated and can be replaced with --dry-run=client.")
        return "client"
    if value in ("client", "server", "none"):
        return value
    raise UsageError(f'Invalid dry-run value ({value}). Must be "none", "server", or "client".')


def duration_flag(value: str, flag: str, command: str) -> float:
    """A pflag DurationVar's value in seconds: Go's time.ParseDuration (no ``d`` unit), its
    error as pflag reports a bad flag value."""
    from kubesim.clock import parse_duration

    try:
        return parse_duration(value, days=False)
    except ValueError as e:
        raise UsageError(f'invalid argument "{value}" for "{flag}" flag: {e}\n'
                         f"See 'kubesim {command} --help' for usage.") from None


def request_timeout(value: str | None) -> float:
    """``--request-timeout`` in seconds (0: none): client-go's clientcmd.ParseTimeout, a whole
    number of seconds or a Go duration."""
    from kubesim.api.gofmt import go_parse_int64
    from kubesim.clock import parse_duration

    if not value:
        return 0.0
    n = go_parse_int64(value)
    if n is not None and n >= 0:
        return float(n)
    try:
        return parse_duration(value, days=False)
    except ValueError:
        raise UsageError("Invalid timeout value. Timeout must be a single integer in seconds, or an integer "
                         "followed by a corresponding time unit (e.g. 1s | 2m | 3h)") from None


def go_int(bits: int = 64):
    """An argparse ``type`` for a pflag integer flag (IntVar/Int64Var: ``strconv.ParseInt(s, 0,
    64)``; Int32Var: 32 bits): Go's syntax (``0x10``, ``1_000``) and range, its error text, which
    the CLI's parser words as pflag does (``invalid argument "x" for "--flag" flag: ...``)."""
    import argparse

    def convert(value: str) -> int:
        from kubesim.kubectl.generate.flags import parse_go_int

        try:
            return parse_go_int(value, bits)
        except ValueError as e:
            raise argparse.ArgumentTypeError(str(e)) from None

    convert.__name__ = f"int{bits}"
    return convert


def template_text(fmt: str) -> str:
    """The template of ``-o jsonpath=T`` / ``jsonpath-as-json=T``, or the text of the file that
    ``-o jsonpath-file=F`` names, with kubectl's error when it cannot be read (printers'
    ``error reading --template F, open F: ...``)."""
    arg = fmt.split("=", 1)[1] if "=" in fmt else ""
    if not arg:
        raise UsageError("template format specified but no template given")
    if not fmt.startswith("jsonpath-file="):
        return arg
    path = arg
    try:
        with open(path, encoding="utf-8") as fh:
            return fh.read()
    except OSError as e:
        op = "read" if os.path.isdir(path) else "open"
        raise UsageError(f"error reading --template {path}, {op} {path}: {(e.strerror or str(e)).lower()}") from None
    except UnicodeDecodeError as e:
        raise UsageError(f"error reading --template {path}, {e}") from None


def bool_flag_value(value, flag: str, command: str | None = None) -> bool:
    """A pflag bool flag's value (None: not given): strconv.ParseBool, else pflag's error naming
    the flag as its help does (``"-w, --watch"``), with cobra's hint to ``command``'s help."""
    if value is None:
        return False
    b = go_parse_bool(str(value))
    if b is None:
        hint = f"\nSee 'kubesim {command} --help' for usage." if command else ""
        raise UsageError(f'invalid argument "{value}" for "{flag}" flag: strconv.ParseBool: parsing "{value}": '
                         "invalid syntax" + hint)
    return b


def bool_flag(p, *names, help_=None):
    """A cobra bool flag: ``--x``, ``--x=true``, ``--x=false``."""
    p.add_argument(*names, nargs="?", const="true", default=None, metavar="true|false", help=help_)


def change_cause(args, words: list[str]) -> str | None:
    """RecordFlags: with ``--record``, the command line as kubectl records it (program, the
    non-flag words, then the flags as ``--name=value``)."""
    command = " ".join(words[:2]) if words[:1] == ["set"] else words[0]
    if not bool_flag_value(args.record, "--record", command):
        return None
    flags = []
    for name, value in getattr(args, "_given_flags", []):
        flags.append(f" --{name}={value}")
    return "kubesim " + " ".join(words) + "".join(flags) + " --record=true"


def record_warning(args, env) -> None:
    if getattr(args, "record", None) is not None:
        env.stderr.write("Flag --record has been deprecated, --record will be removed in the future\n")


def result_line(info, obj: dict, operation: str, output: str | None) -> str:
    ref = f"{info.ref}/{obj['metadata']['name']}"
    if output == "name" or not operation:
        return ref
    return f"{ref} {operation}"


def print_result(env, output: str | None, objs: list[dict], lines: list[str]) -> None:
    """What a changing verb prints: the objects for ``-o yaml|json``, else its result lines
    (already in ``-o name`` form when asked)."""
    if output in ("yaml", "json"):
        env.stdout.write(objects_text(objs, output))
    else:
        env.stdout.write("".join(line + "\n" for line in lines))


def objects_text(objs: list[dict], output: str) -> str:
    """The YAML or JSON printer over several objects (YAML separates them with ``---``)."""
    from kubesim.printers.output import omit_managed_fields, to_json, to_yaml

    out = []
    for i, obj in enumerate(objs):
        obj = omit_managed_fields(obj)
        if output == "yaml":
            if i:
                out.append("---\n")
            out.append(to_yaml(obj))
        elif output == "json":
            out.append(to_json(obj))
        else:
            raise UsageError(f'unable to match a printer suitable for the output format "{output}", allowed formats '
                             "are: json,name,yaml")
    return "".join(out)


def check_output(output: str | None) -> None:
    if output not in (None, "", "name", "yaml", "json"):
        raise UsageError(f'unable to match a printer suitable for the output format "{output}", allowed formats '
                         "are: json,name,yaml")


def dry_suffix(dry: str) -> str:
    return {"client": " (dry run)", "server": " (server dry run)"}.get(dry, "")


def add_dry_run(p):
    p.add_argument("--dry-run", nargs="?", const="unchanged", default=None,
                   help='Must be "none", "server", or "client"')


def comparable(obj: dict) -> dict:
    """The object as a change compares it: without its resourceVersion."""
    import copy

    o = copy.deepcopy(obj)
    (o.get("metadata") or {}).pop("resourceVersion", None)
    return o


def aggregate_lines(messages: list[str]) -> KubesimError:
    """kubectl's CheckErr of an aggregate: one message, or each on its own line (unprefixed)."""
    messages = [m.rstrip("\n") if len(messages) == 1 else m for m in messages]
    if len(messages) == 1:
        return client_error(messages[0])
    return RawError("".join(m if m.endswith("\n") else m + "\n" for m in messages).rstrip("\n"))
