"""How kubectl reads its flags (pflag's Go-isms): bool flags taking ``--x=false``, ``--dry-run``,
``int32`` flags through ``strconv.ParseInt(s, 0, 32)``, ``strconv.Atoi`` with a silent int32
wrap-around, string slices as one CSV record each, and cobra's usage errors.

Upstream: spf13/pflag (bool.go, int32.go, string_slice.go's readAsCSV), encoding/csv,
staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go (UsageErrorf).
"""

from __future__ import annotations

import argparse
import re

from kubesim.api.gofmt import GO_FALSE, GO_TRUE, go_quote
from kubesim.errors import UsageError


def bool_flag(p, *names: str, dest: str, help: str) -> None:
    """A pflag bool: ``--x`` sets it, ``--x=false`` (any strconv.ParseBool spelling) clears it, and
    unlike argparse's ``nargs="?"`` the next word is never taken as its value."""
    p.add_argument(*names, dest=dest, action="store_const", const=True, default=None, help=help)
    for name in names:
        if name.startswith("--"):
            for word, value in [(w, True) for w in GO_TRUE] + [(w, False) for w in GO_FALSE]:
                p.add_argument(f"{name}={word}", dest=dest, action="store_const", const=value,
                               help=argparse.SUPPRESS)


def dry_run_flag(p) -> None:
    p.add_argument("--dry-run", dest="dry_run", nargs="?", const="unchanged", default=None, metavar="none|server|client",
                   help='"client" only prints the object that would be sent; "server" submits it without '
                        "persisting it; \"none\" (the default) creates it")


def flag_error(verb: str, value: str, flag: str, detail: str) -> UsageError:
    return UsageError(f"invalid argument {go_quote(value)} for {go_quote(flag)} flag: {detail}\n"
                      f"See 'kubesim {verb} --help' for usage.")


_GO_INT_BASE0 = re.compile(r"[+-]?(0[xX][0-9a-fA-F_]+|0[oO][0-7_]+|0[bB][01_]+|0[0-7_]*|[1-9][0-9_]*)")


def parse_go_int(s: str, bits: int = 32) -> int:
    """strconv.ParseInt(s, 0, bits); ValueError("invalid syntax"|"value out of range") as Go words it."""
    if not _GO_INT_BASE0.fullmatch(s) or "__" in s or s.rstrip("_") != s:
        raise ValueError(f"strconv.ParseInt: parsing {go_quote(s)}: invalid syntax")
    sign = -1 if s[0] == "-" else 1
    body = s.lstrip("+-").replace("_", "")
    if body[:2].lower() in ("0x", "0o", "0b"):
        if len(body) == 2:
            raise ValueError(f"strconv.ParseInt: parsing {go_quote(s)}: invalid syntax")
        n = int(body, 0)
    elif len(body) > 1 and body[0] == "0":
        n = int(body, 8)
    else:
        n = int(body, 10)
    n *= sign
    if not -(1 << (bits - 1)) <= n < (1 << (bits - 1)):
        raise ValueError(f"strconv.ParseInt: parsing {go_quote(s)}: value out of range")
    return n


def go_atoi(s: str) -> int:
    """strconv.Atoi: base 10, an optional sign, 64-bit."""
    if not re.fullmatch(r"[+-]?[0-9]+", s):
        raise ValueError(f"strconv.Atoi: parsing {go_quote(s)}: invalid syntax")
    n = int(s)
    if not -(1 << 63) <= n < (1 << 63):
        raise ValueError(f"strconv.Atoi: parsing {go_quote(s)}: value out of range")
    return n


def int32_wrap(n: int) -> int:
    return ((n + (1 << 31)) % (1 << 32)) - (1 << 31)


def read_csv_line(val: str) -> list[str]:
    """pflag's readAsCSV: one record of encoding/csv (quotes, doubled quotes), ``""`` → no items."""
    if val == "":
        return []
    fields: list[str] = []
    i, n = 0, len(val)
    while True:
        if i < n and val[i] == '"':
            i += 1
            buf = []
            while True:
                j = val.find('"', i)
                if j < 0:
                    raise ValueError(f'parse error on line 1, column {len(val.encode()) + 1}: extraneous or missing " in quoted-field')
                buf.append(val[i:j])
                if j + 1 < n and val[j + 1] == '"':
                    buf.append('"')
                    i = j + 2
                    continue
                i = j + 1
                if i < n and val[i] != ",":
                    col = len(val[:j].encode()) + 1  # Go points at the closing quote
                    raise ValueError(f'parse error on line 1, column {col}: extraneous or missing " in quoted-field')
                break
            fields.append("".join(buf))
        else:
            j = val.find(",", i)
            field = val[i:] if j < 0 else val[i:j]
            q = field.find('"')
            if q >= 0:
                col = len(val[:i + q].encode()) + 1
                raise ValueError(f'parse error on line 1, column {col}: bare " in non-quoted-field')
            fields.append(field)
            i = n if j < 0 else j
        if i >= n:
            return fields
        i += 1  # the comma
        if i >= n:
            fields.append("")
            return fields


def usage_error(verb: str, message: str) -> UsageError:
    """cmdutil.UsageErrorf: the message and a pointer to the command's help."""
    return UsageError(f"{message}\nSee 'kubesim {verb} -h' for help and examples")


def unknown_flag(verb: str, flag: str) -> UsageError:
    return UsageError(f"unknown flag: {flag}\nSee 'kubesim {verb} --help' for usage.")


def csv_flag(raw: list[str] | None, verb: str, flag: str) -> list[str]:
    """A pflag StringSlice: each occurrence read as one CSV record."""
    out: list[str] = []
    for value in raw or []:
        try:
            out += read_csv_line(value)
        except ValueError as e:
            raise flag_error(verb, value, flag, str(e)) from None
    return out


def int32_flag(raw: str | None, verb: str, flag: str, default: int) -> int:
    if raw is None:
        return default
    try:
        return parse_go_int(raw, 32)
    except ValueError as e:
        raise flag_error(verb, raw, flag, str(e)) from None
