"""Label keys, label values and DNS subdomains: apimachinery's content validators.

Written from the upstream sources (behaviour and messages carried over, code not):

- ``staging/src/k8s.io/apimachinery/pkg/api/validate/content/kube.go``: ``IsLabelKey`` (which
  ``util/validation.IsQualifiedName`` now is) and ``IsLabelValue`` (``IsValidLabelValue``);
- ``.../api/validate/content/dns.go``: ``IsDNS1123Subdomain``, which ``IsLabelKey`` applies to a
  key's prefix;
- ``.../api/validate/content/errors.go``: ``RegexError``, ``EmptyError`` and ``MaxLenError``.

Lengths are counted in bytes, as Go's ``len`` does. The wording is the v1.36 release's, checked
against kubectl 1.36 (``kubectl create pdb --selector`` for keys and values,
``kubectl label`` for values): ``name part must be no more than 63 bytes``,
``prefix part must be no more than 253 bytes``, ``a valid label key must consist of ...``.
``util/validation`` keeps its own ``MaxLenError`` ("must be no more than 253 characters", as
``kubectl create configmap`` still says for a long key), so :func:`dns1123_subdomain_errors`
takes the length message as a parameter.

One implementation for the selector parser (``kubesim.api.selectors``), the API server's
validation (``kubesim.api.meta.validation``) and kubectl's client-side checks. Stdlib-only (``re``).
"""

from __future__ import annotations

import re

LABEL_KEY_FMT = "([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]"
_LABEL_KEY_ERR = ("must consist of alphanumeric characters, '-', '_' or '.', and must start "
                  "and end with an alphanumeric character")
LABEL_VALUE_FMT = "(" + LABEL_KEY_FMT + ")?"
_LABEL_VALUE_ERR = ("a valid label must be an empty string or consist of alphanumeric characters, "
                    "'-', '_' or '.', and must start and end with an alphanumeric character")
DNS1123_LABEL_FMT = "[a-z0-9]([-a-z0-9]*[a-z0-9])?"
DNS1123_SUBDOMAIN_FMT = DNS1123_LABEL_FMT + "(\\." + DNS1123_LABEL_FMT + ")*"
_DNS1123_SUBDOMAIN_ERR = ("a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                          "characters, '-' or '.', and must start and end with an alphanumeric "
                          "character")
_LABEL_KEY_RE = re.compile(LABEL_KEY_FMT)
_LABEL_VALUE_RE = re.compile(LABEL_VALUE_FMT)
DNS1123_LABEL_RE = re.compile(DNS1123_LABEL_FMT)
DNS1123_SUBDOMAIN_RE = re.compile(DNS1123_SUBDOMAIN_FMT)

EMPTY_ERROR = "must be non-empty"


def regex_error(msg: str, fmt: str, *examples: str) -> str:
    """RegexError (the same text in ``content`` and ``util/validation``)."""
    if not examples:
        return f"{msg} (regex used for validation is '{fmt}')"
    # upstream joins "'a', " + " or " + "'b', " ..., hence the double spaces
    return msg + " (e.g. " + " or ".join(f"'{e}', " for e in examples) + \
        f"regex used for validation is '{fmt}')"


def max_len_error(n: int) -> str:
    """content.MaxLenError."""
    return f"must be no more than {n} bytes"


def dns1123_subdomain_errors(value: str, too_long=max_len_error) -> list[str]:
    """IsDNS1123Subdomain: why ``value`` is not a lowercase RFC 1123 subdomain ([] if it is).
    ``too_long`` words the length error (``util/validation`` passes its "characters" one)."""
    errs = []
    if len(value.encode()) > 253:
        errs.append(too_long(253))
    if not DNS1123_SUBDOMAIN_RE.fullmatch(value):
        errs.append(regex_error(_DNS1123_SUBDOMAIN_ERR, DNS1123_SUBDOMAIN_FMT, "example.com"))
    return errs


def label_key_errors(key: str) -> list[str]:
    """IsLabelKey (formerly IsQualifiedName): why ``key`` is not a valid label key ([] if it is)."""
    errs: list[str] = []
    parts = key.split("/")
    if len(parts) == 1:
        name = parts[0]
    elif len(parts) == 2:
        prefix, name = parts
        if not prefix:
            errs.append("prefix part " + EMPTY_ERROR)
        else:
            errs.extend("prefix part " + m for m in dns1123_subdomain_errors(prefix))
    else:
        return ["a valid label key " + regex_error(_LABEL_KEY_ERR, LABEL_KEY_FMT,
                                                   "MyName", "my.name", "123-abc")
                + " with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')"]
    if not name:
        errs.append("name part " + EMPTY_ERROR)
    elif len(name.encode()) > 63:
        errs.append("name part " + max_len_error(63))
    if not _LABEL_KEY_RE.fullmatch(name):
        errs.append("name part " + regex_error(_LABEL_KEY_ERR, LABEL_KEY_FMT,
                                               "MyName", "my.name", "123-abc"))
    return errs


def label_value_errors(value: str) -> list[str]:
    """IsLabelValue: why ``value`` is not a valid label value ([] when it is)."""
    errs = []
    if len(value.encode()) > 63:
        errs.append(max_len_error(63))
    if not _LABEL_VALUE_RE.fullmatch(value):
        errs.append(regex_error(_LABEL_VALUE_ERR, LABEL_VALUE_FMT, "MyValue", "my_value", "12345"))
    return errs


# -- util/validation's keys and variable names --------------------------------------------------

CONFIG_MAP_KEY_FMT = "[-._a-zA-Z0-9]+"
_CONFIG_MAP_KEY_ERR = "a valid config key must consist of alphanumeric characters, '-', '_' or '.'"
_CONFIG_MAP_KEY_RE = re.compile(CONFIG_MAP_KEY_FMT)
ENV_VAR_NAME_FMT = "[-._a-zA-Z][-._a-zA-Z0-9]*"
_ENV_VAR_NAME_ERR = ("a valid environment variable name must consist of alphabetic characters, digits, '_', "
                     "'-', or '.', and must not start with a digit")
_ENV_VAR_NAME_RE = re.compile(ENV_VAR_NAME_FMT)


def _dot_prefix_errors(value: str) -> list[str]:
    """util/validation hasChDirPrefix."""
    if value == ".":
        return ["must not be '.'"]
    if value == "..":
        return ["must not be '..'"]
    if value.startswith(".."):
        return ["must not start with '..'"]
    return []


def config_map_key_errors(key: str) -> list[str]:
    """IsConfigMapKey (ConfigMap and Secret data keys): why ``key`` is not one ([] when it is)."""
    errs = []
    if len(key) > 253:
        errs.append("must be no more than 253 characters")
    if not _CONFIG_MAP_KEY_RE.fullmatch(key):
        errs.append(regex_error(_CONFIG_MAP_KEY_ERR, CONFIG_MAP_KEY_FMT, "key.name", "KEY_NAME", "key-name"))
    return errs + _dot_prefix_errors(key)


def env_var_name_errors(name: str) -> list[str]:
    """IsEnvVarName (the strict form kubectl's env files use): why ``name`` is not one."""
    errs = []
    if not _ENV_VAR_NAME_RE.fullmatch(name):
        errs.append(regex_error(_ENV_VAR_NAME_ERR, ENV_VAR_NAME_FMT, "my.env-name", "MY_ENV.NAME", "MyEnvName1"))
    return errs + _dot_prefix_errors(name)
