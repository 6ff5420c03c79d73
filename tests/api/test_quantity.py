"""Tests for kubesim.api.quantity.

The tables mirror upstream's quantity_test.go (TestQuantityParse, TestQuantityString,
TestQuantityParseEmit, TestNewSet, TestMilliNewSet, TestNewScaledSet, TestScaledValue) and
quantity_overflow_test.go; rows marked "kubectl 1.36" were checked against that release with
``kubectl set resources --local``. The last sections cover what the API server does with a
manifest's quantity: Quantity.UnmarshalJSON (white space trimmed, numbers as Go's JSON text),
SetDefaults_ResourceList's RoundUp(-3), and the Quantity values kubectl describe adds up.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

from kubesim.api.quantity import (
    BINARY_SI,
    DECIMAL_EXPONENT,
    DECIMAL_SI,
    ERR_FORMAT_WRONG,
    ERR_NUMERIC,
    ERR_SUFFIX,
    Quantity,
    canonical,
    cpu_milli,
    format_quantity,
    from_json,
    mem_bytes,
    milli_value,
    parse,
    parse_quantity,
    parse_quantity_with_format,
    round_up_milli,
    unmarshal_error,
    value,
)

INT64_MAX = 2**63 - 1
INT64_MIN = -(2**63)
KI, MI, GI, TI, PI, EI = (1024**n for n in range(1, 7))


def dec(mantissa: int, exponent: int) -> Fraction:
    """upstream's decQuantity(i, exponent, ...) value: i * 10**exponent."""
    return Fraction(mantissa) * Fraction(10) ** exponent


# TestQuantityParse: input -> (value, format)
PARSE_TABLE = [
    ("0", dec(0, 0), DECIMAL_SI),
    ("0n", dec(0, 0), DECIMAL_SI),
    ("0u", dec(0, 0), DECIMAL_SI),
    ("0m", dec(0, 0), DECIMAL_SI),
    ("0Ki", dec(0, 0), BINARY_SI),
    ("0k", dec(0, 0), DECIMAL_SI),
    ("0Mi", dec(0, 0), BINARY_SI),
    ("0M", dec(0, 0), DECIMAL_SI),
    ("0Gi", dec(0, 0), BINARY_SI),
    ("0G", dec(0, 0), DECIMAL_SI),
    ("0Ti", dec(0, 0), BINARY_SI),
    ("0T", dec(0, 0), DECIMAL_SI),
    # quantity-less numbers are allowed
    ("1", dec(1, 0), DECIMAL_SI),
    # binary suffixes
    ("1Ki", dec(KI, 0), BINARY_SI),
    ("8Ki", dec(8 * KI, 0), BINARY_SI),
    ("7Mi", dec(7 * MI, 0), BINARY_SI),
    ("6Gi", dec(6 * GI, 0), BINARY_SI),
    ("5Ti", dec(5 * TI, 0), BINARY_SI),
    ("4Pi", dec(4 * PI, 0), BINARY_SI),
    ("3Ei", dec(3 * EI, 0), BINARY_SI),
    ("10Ti", dec(10 * TI, 0), BINARY_SI),
    ("100Ti", dec(100 * TI, 0), BINARY_SI),
    # decimal suffixes
    ("5n", dec(5, -9), DECIMAL_SI),
    ("4u", dec(4, -6), DECIMAL_SI),
    ("3m", dec(3, -3), DECIMAL_SI),
    ("9", dec(9, 0), DECIMAL_SI),
    ("8k", dec(8, 3), DECIMAL_SI),
    ("50k", dec(5, 4), DECIMAL_SI),
    ("7M", dec(7, 6), DECIMAL_SI),
    ("6G", dec(6, 9), DECIMAL_SI),
    ("5T", dec(5, 12), DECIMAL_SI),
    ("40T", dec(4, 13), DECIMAL_SI),
    ("300T", dec(3, 14), DECIMAL_SI),
    ("2P", dec(2, 15), DECIMAL_SI),
    ("1E", dec(1, 18), DECIMAL_SI),
    # decimal exponents
    ("1E-3", dec(1, -3), DECIMAL_EXPONENT),
    ("1e3", dec(1, 3), DECIMAL_EXPONENT),
    ("1E6", dec(1, 6), DECIMAL_EXPONENT),
    ("1e9", dec(1, 9), DECIMAL_EXPONENT),
    ("1E12", dec(1, 12), DECIMAL_EXPONENT),
    ("1e15", dec(1, 15), DECIMAL_EXPONENT),
    ("1E18", dec(1, 18), DECIMAL_EXPONENT),
    # nonstandard but still parsable
    ("1e14", dec(1, 14), DECIMAL_EXPONENT),
    ("1e13", dec(1, 13), DECIMAL_EXPONENT),
    ("100.035k", dec(100035, 0), DECIMAL_SI),
    # things that look like floating point
    ("0.001", dec(1, -3), DECIMAL_SI),
    ("0.0005k", dec(5, -1), DECIMAL_SI),
    ("0.005", dec(5, -3), DECIMAL_SI),
    ("0.05", dec(5, -2), DECIMAL_SI),
    ("0.5", dec(5, -1), DECIMAL_SI),
    ("0.00050k", dec(5, -1), DECIMAL_SI),
    ("0.00500", dec(5, -3), DECIMAL_SI),
    ("0.05000", dec(5, -2), DECIMAL_SI),
    ("0.50000", dec(5, -1), DECIMAL_SI),
    ("0.5e0", dec(5, -1), DECIMAL_EXPONENT),
    ("0.5e-1", dec(5, -2), DECIMAL_EXPONENT),
    ("0.5e-2", dec(5, -3), DECIMAL_EXPONENT),
    ("10.035M", dec(10035, 3), DECIMAL_SI),
    ("1.2e3", dec(12, 2), DECIMAL_EXPONENT),
    ("1.3E+6", dec(13, 5), DECIMAL_EXPONENT),
    ("1.40e9", dec(14, 8), DECIMAL_EXPONENT),
    ("1.53E12", dec(153, 10), DECIMAL_EXPONENT),
    ("1.6e15", dec(16, 14), DECIMAL_EXPONENT),
    ("1.7E18", dec(17, 17), DECIMAL_EXPONENT),
    ("9.01", dec(901, -2), DECIMAL_SI),
    ("8.1k", dec(81, 2), DECIMAL_SI),
    ("7.123456M", dec(7123456, 0), DECIMAL_SI),
    ("6.987654321G", dec(6987654321, 0), DECIMAL_SI),
    ("5.444T", dec(5444, 9), DECIMAL_SI),
    ("40.1T", dec(401, 11), DECIMAL_SI),
    ("300.2T", dec(3002, 11), DECIMAL_SI),
    ("2.5P", dec(25, 14), DECIMAL_SI),
    ("1.01E", dec(101, 16), DECIMAL_SI),
    # things that saturate or round
    ("3.001n", dec(4, -9), DECIMAL_SI),
    ("1.1E-9", dec(2, -9), DECIMAL_EXPONENT),
    ("0.0000000001", dec(1, -9), DECIMAL_SI),
    ("0.0000000005", dec(1, -9), DECIMAL_SI),
    ("0.00000000050", dec(1, -9), DECIMAL_SI),
    ("0.5e-9", dec(1, -9), DECIMAL_EXPONENT),
    ("0.9n", dec(1, -9), DECIMAL_SI),
    ("0.00000012345", dec(124, -9), DECIMAL_SI),
    ("0.00000012354", dec(124, -9), DECIMAL_SI),
    ("9Ei", dec(INT64_MAX, 0), BINARY_SI),
    ("9223372036854775807Ki", dec(INT64_MAX, 0), BINARY_SI),
    ("12E", dec(12, 18), DECIMAL_SI),
    # fractional binary values
    ("100.035Ki", dec(10243584, -2), BINARY_SI),
    ("0.5Mi", dec(MI // 2, 0), BINARY_SI),
    ("0.05Gi", dec(536870912, -1), BINARY_SI),
    ("0.025Ti", dec(274877906944, -1), BINARY_SI),
    # things written by trolls
    ("0.000000000001Ki", dec(2, -9), DECIMAL_SI),  # rounds up, changes format
    (".001", dec(1, -3), DECIMAL_SI),
    (".0001k", dec(100, -3), DECIMAL_SI),
    ("1.", dec(1, 0), DECIMAL_SI),
    ("1.G", dec(1, 9), DECIMAL_SI),
]


@pytest.mark.parametrize(("text", "expected", "fmt"), PARSE_TABLE,
                         ids=[f"{t} parses to {v} in {f}" for t, v, f in PARSE_TABLE])
def test_parse_gives_upstreams_value_and_format(text, expected, fmt):
    assert parse_quantity_with_format(text) == (expected, fmt)


@pytest.mark.parametrize(("text", "expected", "fmt"), PARSE_TABLE,
                         ids=[f"-{t} is the negation of {t}" for t, _, _ in PARSE_TABLE])
def test_a_leading_minus_negates_the_value_and_keeps_the_format(text, expected, fmt):
    assert parse_quantity_with_format("-" + text) == (-expected, fmt)


@pytest.mark.parametrize(("text", "expected", "fmt"), PARSE_TABLE,
                         ids=[f"+{t} equals {t}" for t, _, _ in PARSE_TABLE])
def test_a_leading_plus_changes_nothing(text, expected, fmt):
    assert parse_quantity_with_format("+" + text) == (expected, fmt)


INVALID = [
    ("", ERR_FORMAT_WRONG),
    ("1.1.M", ERR_FORMAT_WRONG),
    ("1+1.0M", ERR_FORMAT_WRONG),
    ("0.1mi", ERR_SUFFIX),
    ("0.1am", ERR_FORMAT_WRONG),
    ("aoeu", ERR_FORMAT_WRONG),
    (".5i", ERR_SUFFIX),
    ("1i", ERR_SUFFIX),
    ("-3.01i", ERR_SUFFIX),
    ("-3.01e-", ERR_SUFFIX),
    (" 1", ERR_FORMAT_WRONG),  # whitespace is forbidden
    ("1 ", ERR_FORMAT_WRONG),
    # kubectl 1.36
    ("1ki", ERR_SUFFIX),  # suffixes are case-sensitive
    ("1ee3", ERR_SUFFIX),
    ("1Ki5", ERR_SUFFIX),
    ("1e9223372036854775808", ERR_SUFFIX),  # the exponent must fit an int64
    ("e-10", ERR_NUMERIC),  # no digit at all, and too fine for the int64 fast path
    ("-.e-20", ERR_NUMERIC),
    ("true", ERR_FORMAT_WRONG),
]


@pytest.mark.parametrize(("text", "message"), INVALID,
                         ids=[f"{t!r} is rejected with {m[:28]!r}" for t, m in INVALID])
def test_invalid_quantities_raise_upstreams_message(text, message):
    with pytest.raises(ValueError) as err:
        parse_quantity(text)
    assert str(err.value) == message


def test_the_format_error_quotes_upstreams_regular_expression():
    assert ERR_FORMAT_WRONG == ("quantities must match the regular expression "
                                "'^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'")


# TestQuantityString: (value, format) -> canonical string, and an alternate spelling that
# canonicalizes to it.
STRING_TABLE = [
    (dec(GI, 0), BINARY_SI, "1Gi", "1024Mi"),
    (dec(300 * MI, 0), BINARY_SI, "300Mi", "307200Ki"),
    (dec(6 * KI, 0), BINARY_SI, "6Ki", ""),
    (dec(1001 * GI, 0), BINARY_SI, "1001Gi", "1025024Mi"),
    (dec(TI, 0), BINARY_SI, "1Ti", "1024Gi"),
    (dec(5, 0), BINARY_SI, "5", "5000m"),
    (dec(500, -3), BINARY_SI, "500m", "0.5"),
    (dec(1, 9), DECIMAL_SI, "1G", "1000M"),
    (dec(1000, 6), DECIMAL_SI, "1G", "0.001T"),
    (dec(1000000, 3), DECIMAL_SI, "1G", ""),
    (dec(1000000000, 0), DECIMAL_SI, "1G", ""),
    (dec(1, -3), DECIMAL_SI, "1m", "1000u"),
    (dec(80, -3), DECIMAL_SI, "80m", ""),
    (dec(1080, -3), DECIMAL_SI, "1080m", "1.08"),
    (dec(108, -2), DECIMAL_SI, "1080m", "1080000000n"),
    (dec(10800, -4), DECIMAL_SI, "1080m", ""),
    (dec(300, 6), DECIMAL_SI, "300M", ""),
    (dec(1, 12), DECIMAL_SI, "1T", ""),
    (dec(1, 18), DECIMAL_SI, "1E", ""),
    (dec(1234567, 6), DECIMAL_SI, "1234567M", ""),
    (dec(1234567, -3), BINARY_SI, "1234567m", ""),
    (dec(3, 3), DECIMAL_SI, "3k", ""),
    (dec(1025, 0), BINARY_SI, "1025", ""),
    (dec(0, 0), DECIMAL_SI, "0", ""),
    (dec(0, 0), BINARY_SI, "0", ""),
    (dec(1, 9), DECIMAL_EXPONENT, "1e9", ".001e12"),
    (dec(1, -3), DECIMAL_EXPONENT, "1e-3", "0.001e0"),
    (dec(1, -9), DECIMAL_EXPONENT, "1e-9", "1000e-12"),
    (dec(80, -3), DECIMAL_EXPONENT, "80e-3", ""),
    (dec(300, 6), DECIMAL_EXPONENT, "300e6", ""),
    (dec(1, 12), DECIMAL_EXPONENT, "1e12", ""),
    (dec(1, 3), DECIMAL_EXPONENT, "1e3", ""),
    (dec(3, 3), DECIMAL_EXPONENT, "3e3", ""),
    (dec(0, 0), DECIMAL_EXPONENT, "0", "00"),
    (dec(1, -9), DECIMAL_SI, "1n", ""),
    (dec(80, -9), DECIMAL_SI, "80n", ""),
    (dec(1080, -9), DECIMAL_SI, "1080n", ""),
    (dec(108, -8), DECIMAL_SI, "1080n", ""),
    (dec(10800, -10), DECIMAL_SI, "1080n", ""),
    (dec(1, -6), DECIMAL_SI, "1u", ""),
    (dec(80, -6), DECIMAL_SI, "80u", ""),
    (dec(1080, -6), DECIMAL_SI, "1080u", ""),
]


@pytest.mark.parametrize(("amount", "fmt", "expected", "alternate"), STRING_TABLE,
                         ids=[f"{a} in {f} prints as {e}" for a, f, e, _ in STRING_TABLE])
def test_format_quantity_gives_the_canonical_string(amount, fmt, expected, alternate):
    assert format_quantity(amount, fmt) == expected


@pytest.mark.parametrize(("amount", "fmt", "expected", "alternate"), STRING_TABLE,
                         ids=[f"{e} parses and prints back unchanged" for _, _, e, _ in STRING_TABLE])
def test_a_canonical_string_round_trips(amount, fmt, expected, alternate):
    assert canonical(expected) == expected
    assert parse_quantity(expected) == amount


ALTERNATES = [(a, e) for _, _, e, a in STRING_TABLE if a]


@pytest.mark.parametrize(("alternate", "expected"), ALTERNATES,
                         ids=[f"{a} canonicalizes to {e}" for a, e in ALTERNATES])
def test_an_alternate_spelling_canonicalizes(alternate, expected):
    assert canonical(alternate) == expected


NONZERO_STRINGS = [row for row in STRING_TABLE if row[0] != 0]


@pytest.mark.parametrize(("amount", "fmt", "expected", "alternate"), NONZERO_STRINGS,
                         ids=[f"minus {e} prints as -{e}" for _, _, e, _ in NONZERO_STRINGS])
def test_negative_amounts_print_with_a_minus(amount, fmt, expected, alternate):
    assert format_quantity(-amount, fmt) == "-" + expected


# TestQuantityParseEmit
EMIT_TABLE = [
    ("1Ki", "1Ki"),
    ("1Mi", "1Mi"),
    ("1Gi", "1Gi"),
    ("1024Mi", "1Gi"),
    ("1000M", "1G"),
    (".001Ki", "1024m"),
    (".000001Ki", "1024u"),
    (".000000001Ki", "1024n"),
    (".000000000001Ki", "2n"),
]


@pytest.mark.parametrize(("text", "expected"), EMIT_TABLE,
                         ids=[f"{t} is emitted as {e}" for t, e in EMIT_TABLE])
def test_parse_then_emit(text, expected):
    assert canonical(text) == expected
    assert canonical("-" + text) == "-" + expected


# Rows checked against kubectl 1.36: how the API server prints a quantity back.
KUBECTL_TABLE = [
    ("1536Mi", "1536Mi", "1.5Gi is not a whole number of Gi, so it stays in Mi"),
    ("1.5Gi", "1536Mi", "fractional binary input is rescaled"),
    ("0.5", "500m", "a decimal fraction gets a milli suffix"),
    ("1500m", "1500m", "millis that are not a whole k stay millis"),
    ("100m", "100m", "a canonical milli value is unchanged"),
    ("2000m", "2", "whole millis become units"),
    ("1e100", "10e99", "an exponent moves down to a multiple of three"),
    ("1e19", "10e18", "an exponent moves down to a multiple of three, again"),
    ("9Ei", "9223372036854775807", "BinarySI is capped at 2^63-1"),
    ("8Ei", "9223372036854775807", "2^63 itself is over the cap"),
    ("-9.5000000001Gi", "-10200547328107374183n", "a non-integer BinarySI value prints as DecimalSI"),
    ("0.000000000001Ki", "2n", "values below 1n round up to the next nano"),
    ("+1", "+1", "input that is already canonical is reused verbatim, sign and all"),
    ("01", "01", "leading zeros survive the verbatim reuse"),
    ("1.500k", "1.500k", "a decimal point survives the verbatim reuse"),
    ("1E3", "1E3", "a capital exponent survives the verbatim reuse"),
    ("1e+3", "1e+3", "an explicit exponent sign survives the verbatim reuse"),
    ("+1Ki", "+1Ki", "a binary value not divisible by 8 is reused verbatim"),
    ("1.Ki", "1.Ki", "a trailing point survives the verbatim reuse"),
    ("+1234567890123456789", "1234567890123456789", "19 digits miss the int64 fast path"),
    ("9223372036854775808", "9223372036854775808", "values past int64 stay exact"),
    (".", "0", "a lone point is zero"),
    ("-", "0", "a lone sign is zero"),
    ("k", "0", "a lone suffix is zero"),
    ("1000E", "1", "v1.36 drops an exponent that DecimalSI has no suffix for"),
    ("1e4294967297", "10", "v1.36 wraps an exponent past int32"),
]


@pytest.mark.parametrize(("text", "expected", "why"), KUBECTL_TABLE,
                         ids=[why for _, _, why in KUBECTL_TABLE])
def test_canonical_matches_kubectl(text, expected, why):
    assert canonical(text) == expected


# TestNewSet / TestMilliNewSet: NewQuantity(v, fmt) and NewMilliQuantity(v, fmt).String()
NEW_SET = [
    (Fraction(1), DECIMAL_SI, "1"),
    (Fraction(1000), DECIMAL_SI, "1k"),
    (Fraction(1234000), DECIMAL_SI, "1234k"),
    (Fraction(1024), BINARY_SI, "1Ki"),
    (Fraction(1000000), "invalidFormatDefaultsToExponent", "1e6"),
    (Fraction(1024 * 1024), BINARY_SI, "1Mi"),
    (Fraction(1, 1000), DECIMAL_SI, "1m"),
    (Fraction(1000, 1000), DECIMAL_SI, "1"),
    (Fraction(1234000, 1000), DECIMAL_SI, "1234"),
    (Fraction(1024, 1000), BINARY_SI, "1024m"),  # format changes
    (Fraction(1000000, 1000), "invalidFormatDefaultsToExponent", "1e3"),
    (Fraction(1024 * 1024, 1000), BINARY_SI, "1048576m"),  # format changes
    (Fraction(2**63), BINARY_SI, "8Ei"),  # formatting does not cap; parsing does
    (Fraction(2000), BINARY_SI, "2000"),
]


@pytest.mark.parametrize(("amount", "fmt", "expected"), NEW_SET,
                         ids=[f"{a} in {f} prints as {e}" for a, f, e in NEW_SET])
def test_new_quantities_print_like_upstream(amount, fmt, expected):
    assert format_quantity(amount, fmt) == expected


# TestNewScaledSet: NewScaledQuantity(v, scale).String() is DecimalSI
SCALED_SET = [(1, -9, "1n"), (1000, -9, "1u"), (1, -6, "1u"), (1000, -6, "1m"), (1, -3, "1m"),
              (1000, -3, "1"), (1, 0, "1"), (0, -9, "0"), (0, -6, "0"), (0, -3, "0"), (0, 0, "0")]


@pytest.mark.parametrize(("mantissa", "scale", "expected"), SCALED_SET,
                         ids=[f"{m}e{s} prints as {e}" for m, s, e in SCALED_SET])
def test_scaled_quantities_print_like_upstream(mantissa, scale, expected):
    assert format_quantity(dec(mantissa, scale), DECIMAL_SI) == expected


def test_formatting_uses_the_amount_exactly_even_below_a_nano():
    # kubectl 1.36 would drop the missing suffix's exponent; kubesim mirrors it
    assert format_quantity(dec(1, -12), DECIMAL_SI) == "1"
    assert format_quantity(dec(1, -12), DECIMAL_EXPONENT) == "1e-12"


def test_a_non_terminating_fraction_cannot_be_formatted():
    with pytest.raises(ValueError, match="not a terminating decimal"):
        format_quantity(Fraction(1, 3), DECIMAL_SI)


def test_format_quantity_refuses_text_and_floats():
    with pytest.raises(TypeError):
        format_quantity("1Gi", BINARY_SI)  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        format_quantity(0.5, DECIMAL_SI)  # type: ignore[arg-type]


# TestScaledValue (the milli and unit columns) and the integer views of common inputs
VALUE_TABLE = [
    ("1n", 1, 1, "a nano rounds up to one milli and one unit"),
    ("1u", 1, 1, "a micro rounds up to one milli and one unit"),
    ("1m", 1, 1, "a milli is one milli and rounds up to one unit"),
    ("1", 1000, 1, "one unit is a thousand millis"),
    ("100m", 100, 1, "100m is 100 millis and rounds up to one"),
    ("1.5", 1500, 2, "1.5 rounds up to 2"),
    ("0.0001", 1, 1, "a tenth of a milli rounds up to one milli"),
    ("250m", 250, 1, "250m is a quarter core"),
    ("2", 2000, 2, "two cores"),
    ("1Gi", 1073741824000, 1073741824, "a gibibyte"),
    ("128974848", 128974848000, 128974848, "a plain byte count"),
    ("129e6", 129000000000, 129000000, "an exponent byte count"),
    ("123Mi", 128974848000, 128974848, "a mebibyte count"),
    ("-1.5", -1500, -2, "negative values round away from zero"),
    ("-9.5Gi", -10200547328000, -10200547328, "upstream's negative BinarySI row"),
    ("-9.5000000001Gi", -10200547328108, -10200547329, "upstream's negative rounding row"),
    ("1E", INT64_MAX, 10**18, "1E fits as a value but its millis saturate"),
    ("8Ei", INT64_MAX, INT64_MAX, "the BinarySI cap"),
    ("-8Ei", INT64_MIN, -INT64_MAX, "millis saturate at the negative rail"),
    ("1e100", INT64_MAX, INT64_MAX, "huge values saturate"),
    ("1e2147483647", INT64_MAX, INT64_MAX, "the largest exponent saturates without computing"),
    ("0", 0, 0, "zero"),
]


@pytest.mark.parametrize(("text", "millis", "units", "why"), VALUE_TABLE,
                         ids=[why for *_, why in VALUE_TABLE])
def test_milli_value_and_value(text, millis, units, why):
    assert milli_value(text) == millis
    assert value(text) == units
    assert cpu_milli(text) == millis
    assert mem_bytes(text) == units


# Manifests give numbers too: YAML `cpu: 2` and `cpu: 0.5` reach the API server as JSON numbers.
NUMBER_TABLE = [
    (2, "2", 2000, "an int is read as its decimal digits"),
    (0, "0", 0, "zero"),
    (-3, "-3", -3000, "a negative int"),
    (0.5, "500m", 500, "a float half"),
    (100.0, "100", 100000, "a whole float has no fraction"),
    (0.1, "100m", 100, "shortest digits, not the binary expansion"),
    (1e-7, "100e-9", 1, "tiny floats are written with an exponent, as Go's JSON encoder does"),
    (0.0000025, "2500n", 1, "floats down to 1e-6 are written plainly"),
    (1.5e16, "15P", INT64_MAX, "large floats are written plainly (and their millis saturate)"),
    (1.5e12, "1500G", 1500 * 10**12, "a large float that still fits in millis"),
    (1e21, "1e+21", INT64_MAX, "from 1e21 on Go writes an exponent with a sign"),
    (float(123456789012345678901234), "123456789012345690e6", INT64_MAX, "17 digits of a float"),
    (-0.0, "0", 0, "negative zero"),
]


@pytest.mark.parametrize(("number", "expected", "millis", "why"), NUMBER_TABLE,
                         ids=[why for *_, why in NUMBER_TABLE])
def test_numbers_from_manifests(number, expected, millis, why):
    assert canonical(number) == expected
    assert milli_value(number) == millis


def test_a_boolean_is_not_a_quantity():
    with pytest.raises(ValueError, match="regular expression"):
        parse_quantity(True)


def test_other_types_are_a_type_error():
    with pytest.raises(TypeError):
        parse_quantity(None)  # type: ignore[arg-type]


FRACTION_VIEWS = [
    (Fraction(1, 3), 334, 1, "a third of a core is 334 millis"),
    (Fraction(3, 2), 1500, 2, "one and a half"),
    (Fraction(-3, 2), -1500, -2, "negative fractions round away from zero"),
    (Fraction(2**70), INT64_MAX, INT64_MAX, "huge fractions saturate"),
]


@pytest.mark.parametrize(("amount", "millis", "units", "why"), FRACTION_VIEWS,
                         ids=[why for *_, why in FRACTION_VIEWS])
def test_integer_views_of_fractions(amount, millis, units, why):
    assert milli_value(amount) == millis
    assert value(amount) == units
    assert parse_quantity(amount) is amount


def test_parse_quantity_is_exact():
    assert parse_quantity("1.5Gi") == 1610612736
    assert parse_quantity("0.1m") == Fraction(1, 10000)
    assert parse_quantity("100.035Ki") == Fraction(10243584, 100)


def test_an_exponent_too_large_to_hold_exactly_is_refused_but_still_usable():
    with pytest.raises(ValueError, match="too large to hold exactly"):
        parse_quantity("1e2147483647")
    assert canonical("1e2147483647") == "10e2147483646"


# --- the API server's side: decoding (Quantity.UnmarshalJSON) and SetDefaults_ResourceList --------

# What the server stores for a manifest's value (before defaulting's rounding)
JSON_TABLE = [
    ("500m", "500m"), ("0.5", "500m"), ("1", "1"), ("1000", "1k"), ("1024Mi", "1Gi"), ("1Gi", "1Gi"),
    ("1.5Gi", "1536Mi"), ("2000m", "2"), ("1e3", "1e3"), ("100Ki", "100Ki"), ("0.1", "100m"),
    ("1.1", "1100m"), ("-0.5", "-500m"), ("0", "0"), ("1n", "1n"), ("0.0000000001", "1n"),
    ("512Mi", "512Mi"), (2, "2"), (1.5, "1500m"), (1e-7, "100e-9"), (1e21, "1e+21"),
    (" 1 ", "1"), ("\t2Gi\n", "2Gi"),  # UnmarshalJSON trims white space (strings.TrimSpace)
]


@pytest.mark.parametrize(("raw", "expected"), JSON_TABLE, ids=[repr(r) for r, _ in JSON_TABLE])
def test_from_json_gives_the_string_the_api_server_stores(raw, expected):
    assert str(from_json(raw)) == expected
    assert unmarshal_error(raw) is None


JSON_ERRORS = [
    ("", ERR_FORMAT_WRONG), ("1Gb", ERR_FORMAT_WRONG), ("1iG", ERR_SUFFIX), ("1e", ERR_SUFFIX),
    ("1.2.3", ERR_FORMAT_WRONG), ("1 Gi", ERR_FORMAT_WRONG), ("abc", ERR_FORMAT_WRONG),
    ("12Mi3", ERR_SUFFIX), ("0x10", ERR_FORMAT_WRONG), ("1K", ERR_SUFFIX), ("e-10", ERR_NUMERIC),
    # JSON true, null, objects and lists reach ParseQuantity as their JSON text
    (True, ERR_FORMAT_WRONG), (None, ERR_FORMAT_WRONG), ({"a": 1}, ERR_FORMAT_WRONG), ([1], ERR_FORMAT_WRONG),
    (float("inf"), ERR_FORMAT_WRONG),  # (kubectl itself refuses to encode it)
]


@pytest.mark.parametrize(("raw", "message"), JSON_ERRORS, ids=[repr(r) for r, _ in JSON_ERRORS])
def test_values_that_do_not_decode(raw, message):
    assert unmarshal_error(raw) == message
    with pytest.raises(ValueError) as err:
        from_json(raw)
    assert str(err.value) == message


def test_syntax_checking_accepts_what_is_too_large_to_hold():
    # kubectl 1.36 prints 5e99999999999 as 50e1215752190 (the exponent wraps at int32)
    assert unmarshal_error("5e99999999999") is None
    assert canonical("5e99999999999") == "50e1215752190"
    with pytest.raises(ValueError, match="too large to hold exactly"):
        from_json("5e99999999999")


# SetDefaults_ResourceList: RoundUp(-3), then String()
ROUND_UP_TABLE = [
    ("0.0001", "1m", "a tenth of a milli rounds up"),
    ("1.0005", "1001m", "rounding up to whole millis"),
    ("-0.0001", "-1m", "negative values round away from zero"),
    ("100m", "100m", "whole millis are untouched"),
    ("1n", "1m", "a nano becomes a milli"),
    ("1000500u", "1001m", "micros round up"),
    ("0.000000000001Ki", "1m", "a value below 1n was 2n, and rounds up to 1m"),
    ("1.0001Ki", "1024103m", "a non-integer BinarySI value prints as DecimalSI"),
    ("1.5Gi", "1536Mi", "whole values keep their format"),
    ("+1", "+1", "the verbatim text survives when nothing is rounded"),
    ("1E3", "1E3", "a verbatim exponent survives too"),
    ("12E", "12E", "large values are untouched"),
    (0.5, "500m", "a JSON number"),
    (1e-7, "1e-3", "a tiny JSON number keeps its DecimalExponent format"),
    (" 2 ", "2", "decoding trims white space"),
]


@pytest.mark.parametrize(("raw", "expected", "why"), ROUND_UP_TABLE, ids=[why for *_, why in ROUND_UP_TABLE])
def test_round_up_milli_as_set_defaults_resource_list(raw, expected, why):
    assert round_up_milli(raw) == expected


def test_round_up_milli_raises_what_decoding_raises():
    with pytest.raises(ValueError, match="regular expression"):
        round_up_milli("one")


# --- Quantity values ------------------------------------------------------------------------------


def test_a_parsed_quantity_has_value_format_and_string():
    q = parse("1.5Gi")
    assert (q.value, q.format, str(q)) == (1610612736, BINARY_SI, "1536Mi")
    assert str(parse("+1")) == "+1"  # String() reuses canonical-enough input
    assert parse(0.5) == Quantity(Fraction(1, 2), DECIMAL_SI, "500m")


def test_the_zero_quantity():
    zero = Quantity()
    assert (zero.value, str(zero), zero.milli_value(), zero.int_value()) == (0, "0", 0, 0)


def test_adding_quantities_follows_quantity_add():
    total = parse("1").add(parse("500m"))
    assert (total.value, total.format, str(total)) == (Fraction(3, 2), DECIMAL_SI, "1500m")
    # a zero receiver takes the other's format; the sum no longer has verbatim text
    assert str(Quantity().add(parse("1Gi"))) == "1Gi"
    assert str(parse("+1").add(Quantity())) == "1"
    assert str(parse("1Gi").add(parse("1"))) == "1073741825"


def test_integer_views_of_a_quantity():
    q = parse("1.5")
    assert (q.milli_value(), q.int_value()) == (1500, 2)
    assert parse("-1.5").int_value() == -2  # away from zero, as Value() does
