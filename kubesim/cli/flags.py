"""kubectl's shared flag semantics: ``--dry-run`` (cmdutil.GetDryRunStrategy), the value of a
pflag bool flag (strconv.ParseBool), and the klog warning lines kubectl prints on the way.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go (GetDryRunStrategy, whose
deprecation warnings name their lines in that file), spf13/pflag's ``bool.go`` and the klog
header (``Lmmdd hh:mm:ss.uuuuuu threadid file:line] msg``).

Light on purpose (no engine imports): ``create --dry-run=client`` and ``run`` use it too.
"""

from __future__ import annotations

from kubesim.api.gofmt import go_parse_bool
from kubesim.errors import UsageError


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


def bool_flag_value(value, flag: str) -> bool:
    """A pflag bool flag's value (None: not given): strconv.ParseBool, else pflag's error naming
    the flag as its help does (``"-w, --watch"``)."""
    if value is None:
        return False
    b = go_parse_bool(str(value))
    if b is None:
        raise UsageError(f'invalid argument "{value}" for "{flag}" flag: strconv.ParseBool: parsing "{value}": '
                         "invalid syntax")
    return b
