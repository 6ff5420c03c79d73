"""Resource quantities: ``resource.Quantity`` parsing, canonical strings and integer views.

A faithful re-implementation of apimachinery's fixed-point quantity type, written from:

- ``staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go`` (the scanner, ParseQuantity,
  CanonicalizeBytes, String, Value/MilliValue, Add, RoundUp, UnmarshalJSON),
- ``staging/src/k8s.io/apimachinery/pkg/api/resource/suffix.go`` (suffix tables and interpret),
- ``staging/src/k8s.io/apimachinery/pkg/api/resource/amount.go`` and ``math.go`` (canonical
  mantissa/exponent, base-1024 factoring, rounding away from zero, int64 saturation),
- ``staging/src/k8s.io/apimachinery/pkg/api/resource/quantity_test.go`` and
  ``quantity_overflow_test.go`` (the behaviour pinned by upstream's tables),
- ``pkg/apis/core/v1/defaults.go`` (``SetDefaults_ResourceList``: ``RoundUp(-3)``).

Rules that carry over exactly:

- A quantity is ``<signedNumber><suffix>``; suffixes are binary (Ki Mi Gi Ti Pi Ei), decimal
  (n u m "" k M G T P E) or an exponent (``e``/``E`` + signed integer). Anything else fails with
  upstream's three error texts (``ERR_FORMAT_WRONG``, ``ERR_NUMERIC``, ``ERR_SUFFIX``).
- Values finer than 1n are rounded up, away from zero, to 1n; BinarySI values are capped at
  2^63-1; a BinarySI value strictly between 0 and 1 in magnitude becomes DecimalSI.
- The canonical string keeps the format the input was written in, strips factors of ten into
  an exponent that is a multiple of three, and uses the largest suffix that loses nothing.
  BinarySI falls back to DecimalSI for |v| < 1024 and for non-integers.
- When the input was already "canonical enough" upstream keeps the original text verbatim; so
  ``+1``, ``01``, ``1.500k`` and ``1E3`` print back unchanged, exactly as kubectl does.
- ``value``/``milli_value`` round away from zero (ceil for the non-negative quantities that
  resource requests are) and saturate at the int64 rails.

The behaviour is that of the v1.36 release (checked against kubectl 1.36 with
``kubectl set resources --local``), including two upstream quirks that later upstream code fixes:
a DecimalSI value whose exponent has no suffix (beyond ``E``) loses the exponent when printed
(``1000E`` prints as ``1``), and an exponent outside int32 wraps modulo 2**32 (``1e4294967297``
reads as ``1e1``). One deliberate difference: ``value``/``milli_value`` saturate at the int64
rails (as newer upstream does) instead of returning an overflowed int64.

This is kubesim's one quantity implementation: the API server's decoding (:func:`from_json`,
:func:`unmarshal_error`: white space trimmed, JSON numbers read as the text Go's encoder writes,
see ``kubesim.api.gofmt``), defaulting (:func:`round_up_milli`), validation (:class:`Quantity`
values), the scheduler's integer views and describe's sums (:meth:`Quantity.add`) all use it.

Everything here is pure and stdlib-only. String inputs are cached with ``functools.lru_cache``
because the scheduler converts the same few request strings for thousands of pods.
"""

from __future__ import annotations

import functools
from fractions import Fraction
from typing import NamedTuple

from kubesim.api.gofmt import go_json_number, go_parse_int64

DECIMAL_SI = "DecimalSI"
BINARY_SI = "BinarySI"
DECIMAL_EXPONENT = "DecimalExponent"

_SPLIT_RE_STRING = "^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$"

# The error texts of ParseQuantity, word for word.
ERR_FORMAT_WRONG = "quantities must match the regular expression '" + _SPLIT_RE_STRING + "'"
ERR_NUMERIC = "unable to parse numeric part of quantity"
ERR_SUFFIX = "unable to parse quantity's suffix"

_INT64_MAX = (1 << 63) - 1
_INT64_MIN = -(1 << 63)
_NANO = -9  # the finest scale a parsed quantity keeps
_MILLI = -3
# Fast-path bound on the digits of an int64 mantissa (maxInt64Factors in math.go).
_MAX_INT64_FACTORS = 18
# parse_quantity builds an exact Fraction; refuse magnitudes whose digits alone would not fit
# in memory. Upstream keeps (mantissa, exponent) lazily and never needs to. See parse_quantity.
_MAX_FRACTION_EXPONENT = 4000

_DECIMAL_SUFFIXES = {"n": -9, "u": -6, "m": -3, "": 0, "k": 3, "M": 6, "G": 9, "T": 12,
                     "P": 15, "E": 18}
_BINARY_SUFFIXES = {"Ki": 10, "Mi": 20, "Gi": 30, "Ti": 40, "Pi": 50, "Ei": 60}
_DECIMAL_SUFFIX_BY_EXPONENT = {e: s for s, e in _DECIMAL_SUFFIXES.items()}
_BINARY_SUFFIX_BY_POWER_OF_1024 = {e // 10: s for s, e in _BINARY_SUFFIXES.items()}
_SUFFIX_CHARS = frozenset("eEinumkKMGTP")
_DIGITS = frozenset("0123456789")


class _Parsed(NamedTuple):
    """A parsed quantity: ``mantissa * 10**exponent`` in ``fmt``; ``verbatim`` when String()
    returns the input unchanged."""

    mantissa: int
    exponent: int
    fmt: str
    verbatim: bool


# --- the scanner and suffix interpreter ----------------------------------------------------


def _scan(s: str) -> tuple[bool, str, str, str, str]:
    """Split ``s`` into (positive, value, numerator, denominator, suffix) like
    parseQuantityString; the numerator has its leading zeros stripped ("0" when none remain)."""
    positive = True
    pos = 0
    end = len(s)
    if end and s[0] in "+-":
        positive = s[0] == "+"
        pos = 1
    while True:  # leading zeros
        if pos >= end:
            return positive, "0", "0", "", ""
        if s[pos] != "0":
            break
        pos += 1
    start = pos
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, s, s[start:], "", ""
    num = s[start:pos] or "0"
    denom = ""
    if s[pos] == ".":
        pos += 1
        start = pos
        while pos < end and s[pos] in _DIGITS:
            pos += 1
        if pos >= end:
            return positive, s, num, s[start:], ""
        denom = s[start:pos]
    value = s[:pos]
    suffix_start = pos
    while pos < end and s[pos] in _SUFFIX_CHARS:
        pos += 1
    if pos >= end:
        return positive, value, num, denom, s[suffix_start:]
    if s[pos] in "+-":
        pos += 1
    while pos < end and s[pos] in _DIGITS:
        pos += 1
    if pos >= end:
        return positive, value, num, denom, s[suffix_start:]
    # a character that is neither a suffix letter nor a digit of the exponent
    raise ValueError(ERR_FORMAT_WRONG)


def _interpret(suffix: str) -> tuple[int, int, str]:
    """(base, exponent, format) of a suffix, or ValueError(ERR_SUFFIX)."""
    exp = _DECIMAL_SUFFIXES.get(suffix)
    if exp is not None:
        return 10, exp, DECIMAL_SI
    exp = _BINARY_SUFFIXES.get(suffix)
    if exp is not None:
        return 2, exp, BINARY_SI
    if len(suffix) > 1 and suffix[0] in "eE":
        exp = go_parse_int64(suffix[1:])
        if exp is not None:
            # stored as an int32 scale: v1.36 truncates, so 1e4294967297 is 1e1
            return 10, (exp + (1 << 31)) % (1 << 32) - (1 << 31), DECIMAL_EXPONENT
    raise ValueError(ERR_SUFFIX)


def _div_away(n: int, digits: int) -> int:
    """n / 10**digits rounded away from zero (digits > 0)."""
    mag = -n if n < 0 else n
    if digits > mag.bit_length() // 3 + 1:  # then 10**digits > 2**bit_length > |n|
        q = 1 if mag else 0
    else:
        q, r = divmod(mag, 10**digits)
        q += r != 0
    return -q if n < 0 else q


def _parse(s: str) -> _Parsed:
    if not s:
        raise ValueError(ERR_FORMAT_WRONG)
    if s == "0":
        return _Parsed(0, 0, DECIMAL_SI, True)
    positive, value, num, denom, suffix = _scan(s)
    base, exponent, fmt = _interpret(suffix)

    # The int64 fast path: exact, and the only path on which the input text can be reused.
    multiplier = 1
    if fmt == BINARY_SI:
        scale = 0
        if exponent >= 0 and not denom:
            multiplier = 1 << exponent
            precision = 15 - len(num) - exponent * 3 // 10 - 1
        else:
            precision = -1
    else:
        scale = exponent
        precision = _MAX_INT64_FACTORS - (len(num) + len(denom))
    if precision >= 0:
        scale -= len(denom)
        if scale >= _NANO:
            shifted = num + denom
            magnitude = int(shifted)
            signed = magnitude if positive else -magnitude
            result = signed * multiplier
            if _INT64_MIN <= signed <= _INT64_MAX and _INT64_MIN <= result <= _INT64_MAX:
                if fmt == BINARY_SI:
                    verbatim = exponent % 10 == 0 and magnitude & 0x07 != 0
                else:
                    verbatim = (scale % 3 == 0 and not shifted.endswith("000")
                                and shifted[0] != "0")
                return _Parsed(result, scale, fmt, verbatim)

    # The arbitrary-precision path (inf.Dec in upstream).
    unsigned = value[1:] if value[:1] in ("+", "-") else value
    int_part, _, frac_part = unsigned.partition(".")
    if not (int_part or frac_part):  # inf.Dec needs at least one digit
        raise ValueError(ERR_NUMERIC)
    mantissa = int(int_part + frac_part or "0")
    if value[:1] == "-":
        mantissa = -mantissa
    exp10 = -len(frac_part)
    if base == 10:
        exp10 += exponent
    else:
        mantissa <<= exponent
    if mantissa and exp10 < _NANO:
        mantissa = _div_away(mantissa, _NANO - exp10)
        exp10 = _NANO
    if fmt == BINARY_SI:
        # exp10 is in [-9, 0] here: binary suffixes never move the decimal point.
        unit = 10**-exp10
        if abs(mantissa) > _INT64_MAX * unit:
            mantissa, exp10 = (_INT64_MAX if mantissa > 0 else -_INT64_MAX), 0
        elif 0 < abs(mantissa) < unit:
            fmt = DECIMAL_SI
    return _Parsed(mantissa, exp10, fmt, False)


# --- canonical formatting ------------------------------------------------------------------


def _format_decimal(mantissa: int, exponent: int, fmt: str) -> str:
    while mantissa % 10 == 0:
        mantissa //= 10
        exponent += 1
    shift = exponent % 3  # move down to a multiple of three
    mantissa *= 10**shift
    exponent -= shift
    if fmt == DECIMAL_SI:
        # v1.36 ignores a failed suffix lookup, so an exponent with no suffix is dropped
        return f"{mantissa}{_DECIMAL_SUFFIX_BY_EXPONENT.get(exponent, '')}"
    return f"{mantissa}e{exponent}" if exponent else str(mantissa)


def _format(mantissa: int, exponent: int, fmt: str) -> str:
    if mantissa == 0:
        return "0"
    if fmt not in (DECIMAL_SI, BINARY_SI):
        fmt = DECIMAL_EXPONENT  # upstream's default for an unknown Format
    if fmt == BINARY_SI:
        if exponent >= 0:
            whole, exact = mantissa * 10**exponent, True
        else:
            q, r = divmod(abs(mantissa), 10**-exponent)
            whole, exact = (q if mantissa > 0 else -q), r == 0
        if not exact or -1024 < whole < 1024:
            return _format_decimal(mantissa, exponent, DECIMAL_SI)
        powers = 0
        while whole % 1024 == 0:
            whole //= 1024
            powers += 1
        # beyond Ei there is no suffix, and v1.36 drops the exponent as for DecimalSI
        return f"{whole}{_BINARY_SUFFIX_BY_POWER_OF_1024.get(powers, '')}"
    return _format_decimal(mantissa, exponent, fmt)


# --- inputs --------------------------------------------------------------------------------


@functools.lru_cache(maxsize=8192)
def _parse_cached(s: str) -> _Parsed:
    return _parse(s)


def _as_text(q: str | float) -> str:
    if isinstance(q, str):
        return q
    if isinstance(q, bool):
        return "true" if q else "false"  # a JSON boolean is not a quantity
    if isinstance(q, (int, float)):
        # a manifest's number reaches the API server as the text Go's JSON encoder gives it
        return go_json_number(q)
    raise TypeError(f"a quantity must be a string or a number, not {type(q).__name__}")


def _parsed(q: str | float) -> _Parsed:
    return _parse_cached(q if type(q) is str else _as_text(q))


def _to_fraction(mantissa: int, exponent: int, source: object) -> Fraction:
    if exponent > _MAX_FRACTION_EXPONENT:
        raise ValueError(f"quantity {source!r} is too large to hold exactly: "
                         f"its exponent {exponent} exceeds {_MAX_FRACTION_EXPONENT}")
    if exponent >= 0:
        return Fraction(mantissa * 10**exponent)
    return Fraction(mantissa, 10**-exponent)


def _from_fraction(value: Fraction | int) -> tuple[int, int]:
    """(mantissa, exponent) with value == mantissa * 10**exponent, or ValueError."""
    value = Fraction(value)
    den = value.denominator
    twos = fives = 0
    while den % 2 == 0:
        den //= 2
        twos += 1
    while den % 5 == 0:
        den //= 5
        fives += 1
    if den != 1:
        raise ValueError(f"{value} is not a terminating decimal, so no quantity can hold it")
    places = max(twos, fives)
    return value.numerator * (10**places // value.denominator), -places


# --- public API ----------------------------------------------------------------------------


def parse_quantity(q: str | float | Fraction) -> Fraction:
    """The exact value of a quantity (ParseQuantity), as a Fraction.

    Strings follow upstream's grammar and rounding; ints are read as the JSON number they are
    in a manifest (``cpu: 2``), floats as the text Go's JSON encoder gives them. A Fraction is
    returned unchanged. Bad input raises ValueError with upstream's message.
    """
    if isinstance(q, Fraction):
        return q
    p = _parsed(q)
    return _to_fraction(p.mantissa, p.exponent, q)


def parse_quantity_with_format(q: str | float) -> tuple[Fraction, str]:
    """(value, format) where format is the Format upstream records while parsing."""
    p = _parsed(q)
    return _to_fraction(p.mantissa, p.exponent, q), p.fmt


def _scaled(mantissa: int, exponent: int, scale: int) -> int:
    """ceil-away-from-zero of mantissa * 10**(exponent - scale), saturated to int64."""
    if mantissa == 0:
        return 0
    shift = exponent - scale
    if shift >= 0:
        if shift >= 19:  # 10**19 alone exceeds int64
            return _INT64_MAX if mantissa > 0 else _INT64_MIN
        result = mantissa * 10**shift
    else:
        result = _div_away(mantissa, -shift)
    return min(max(result, _INT64_MIN), _INT64_MAX)


def _scaled_fraction(value: Fraction, scale: int) -> int:
    scaled = value * Fraction(10) ** -scale
    magnitude = -(-abs(scaled) // 1)  # ceil of the magnitude: away from zero
    result = int(magnitude if scaled >= 0 else -magnitude)
    return min(max(result, _INT64_MIN), _INT64_MAX)


def value(q: str | float | Fraction) -> int:
    """Quantity.Value(): the value rounded up, away from zero, to an integer; saturates at
    the int64 rails like upstream (a 2^70-byte quantity reads as 2^63-1)."""
    if type(q) is str:
        return _value_str(q)
    if isinstance(q, Fraction):
        return _scaled_fraction(q, 0)
    p = _parsed(q)
    return _scaled(p.mantissa, p.exponent, 0)


def milli_value(q: str | float | Fraction) -> int:
    """Quantity.MilliValue(): ceil(q * 1000) away from zero, saturated at the int64 rails."""
    if type(q) is str:
        return _milli_str(q)
    if isinstance(q, Fraction):
        return _scaled_fraction(q, _MILLI)
    p = _parsed(q)
    return _scaled(p.mantissa, p.exponent, _MILLI)


@functools.lru_cache(maxsize=8192)
def _value_str(s: str) -> int:
    p = _parse_cached(s)
    return _scaled(p.mantissa, p.exponent, 0)


@functools.lru_cache(maxsize=8192)
def _milli_str(s: str) -> int:
    p = _parse_cached(s)
    return _scaled(p.mantissa, p.exponent, _MILLI)


def cpu_milli(q: str | float | Fraction) -> int:
    """A CPU quantity in millicores (``"250m"`` -> 250, ``2`` -> 2000)."""
    return milli_value(q)


def mem_bytes(q: str | float | Fraction) -> int:
    """A memory/storage quantity in bytes (``"1Gi"`` -> 1073741824)."""
    return value(q)


def format_quantity(amount: Fraction | int, fmt: str) -> str:
    """Quantity.String() for ``amount`` held in ``fmt`` (DecimalSI, BinarySI or
    DecimalExponent; any other string formats as DecimalExponent, as upstream does).

    The amount is used exactly as given: no rounding to 1n and no BinarySI cap (those happen
    when parsing). It must be a terminating decimal, else ValueError. As in v1.36, a DecimalSI
    exponent outside n..E and a BinarySI power beyond Ei are silently dropped.
    """
    if isinstance(amount, (str, float)):
        raise TypeError("format_quantity takes an exact int or Fraction; use canonical() for text")
    mantissa, exponent = _from_fraction(amount)
    return _format(mantissa, exponent, fmt)


def canonical(q: str | float) -> str:
    """ParseQuantity(q).String(): the form kubectl and the API server print back."""
    if type(q) is str:
        return _canonical_str(q)
    return _canonical_str(_as_text(q))


@functools.lru_cache(maxsize=4096)
def _canonical_str(s: str) -> str:
    p = _parse_cached(s)
    return s if p.verbatim else _format(p.mantissa, p.exponent, p.fmt)


# --- Quantity values, JSON decoding and defaulting -----------------------------------------


class Quantity(NamedTuple):
    """A ``resource.Quantity``: its exact value, the Format its String() uses, and, for a parsed
    quantity, the String() itself (the input when upstream keeps it verbatim). ``str(q)`` is
    String(); a quantity built by arithmetic has no text and formats its value."""

    value: Fraction = Fraction(0)
    format: str = DECIMAL_SI
    text: str | None = None

    def __str__(self) -> str:
        if self.text is not None:
            return self.text
        return format_quantity(self.value, self.format)

    def add(self, other: Quantity) -> Quantity:
        """Quantity.Add: the sum, in this quantity's format unless this one is zero."""
        fmt = other.format if self.value == 0 else self.format
        return Quantity(self.value + other.value, fmt)

    def milli_value(self) -> int:
        """Quantity.MilliValue() (see :func:`milli_value`)."""
        return _scaled_fraction(self.value, _MILLI)

    def int_value(self) -> int:
        """Quantity.Value() (see :func:`value`)."""
        return _scaled_fraction(self.value, 0)


def parse(q: str | float) -> Quantity:
    """ParseQuantity(q) as a :class:`Quantity`. Inputs as for :func:`parse_quantity`;
    ValueError with upstream's message when it does not parse."""
    text = q if type(q) is str else _as_text(q)
    p = _parse_cached(text)
    return Quantity(_to_fraction(p.mantissa, p.exponent, q), p.fmt, _canonical_str(text))


def _json_text(v: object) -> str:
    """The text Quantity.UnmarshalJSON hands to ParseQuantity for a decoded JSON value: a
    string without its surrounding white space (strings.TrimSpace), a number as Go's encoder
    wrote it. Anything else cannot be a quantity (ValueError, the regular-expression message)."""
    if isinstance(v, str):
        return v.strip()
    if isinstance(v, (int, float)) and not isinstance(v, bool):
        return go_json_number(v)
    raise ValueError(ERR_FORMAT_WRONG)


def from_json(v: object) -> Quantity:
    """Quantity.UnmarshalJSON of a decoded JSON value (a manifest's ``cpu: " 1 "``, ``cpu: 0.5``),
    as the API server decodes an object: :func:`parse` after trimming white space."""
    return parse(_json_text(v))


def unmarshal_error(v: object) -> str | None:
    """The error Quantity.UnmarshalJSON returns for a decoded JSON value, or None if it decodes.

    Checks the syntax only, so it also accepts quantities too large for :func:`parse` to hold
    exactly (``1e5000``), as the API server does."""
    try:
        _parse_cached(_json_text(v))
    except ValueError as e:
        return str(e)
    return None


def round_up_milli(v: object) -> str:
    """What the API server stores for a resource-list value: SetDefaults_ResourceList
    (``pkg/apis/core/v1/defaults.go``) decodes it (:func:`from_json`) and calls
    ``RoundUp(-3)``: a value finer than 1m is rounded away from zero to whole millis, which
    also drops the verbatim text; any other value keeps its String()."""
    text = _json_text(v)
    p = _parse_cached(text)
    if p.exponent >= _MILLI:
        return _canonical_str(text)
    return _format(_div_away(p.mantissa, _MILLI - p.exponent), _MILLI, p.fmt)
