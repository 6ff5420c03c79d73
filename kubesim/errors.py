"""The exception hierarchy, with kubectl's messages.

kubectl prints API errors as ``Error from server (Reason): message`` (k8s.io/kubectl
``cmd/util/helpers.go`` StandardErrorMessage) and client-side problems as ``error: ...``.
Every error maps to exit code 1, as kubectl's ``CheckErr`` does; the mapping lives in
``kubesim.cli.main`` alone.
"""

from __future__ import annotations


class KubesimError(Exception):
    """Base class: ``str(e)`` is the full line kubectl would print on stderr."""

    exit_code = 1

    def __str__(self) -> str:  # pragma: no cover - overridden
        return "error: " + (self.args[0] if self.args else "unknown error")


class UsageError(KubesimError):
    """A client-side problem: bad flags, unreadable files. Printed as ``error: ...``."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return "error: " + self.message


class RawError(KubesimError):
    """A fully formatted error text, printed exactly as given (``error: ...`` included, several
    lines if need be)."""

    def __init__(self, text: str):
        super().__init__(text)
        self.text = text

    def __str__(self) -> str:
        return self.text


class GoPanic(RawError):
    """Where kubectl itself panics (an index past a slice, reflection on a nil pointer): the
    panic's first line, exit 2 (kubectl goes on with the goroutine's stack, which kubesim does
    not print)."""

    exit_code = 2


def client_error(message: str) -> RawError:
    """kubectl's CheckErr for a plain error: ``error: `` unless the message already has it."""
    return RawError(message if message.startswith("error: ") else "error: " + message)


class StatusError(KubesimError):
    """An error the API server would return (metav1.Status with a reason)."""

    reason = "InternalError"

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return f"Error from server ({self.reason}): {self.message}"


class NotFound(StatusError):
    reason = "NotFound"

    def __init__(self, resource: str, name: str):
        # resource is the plural, qualified with its group when it has one: pods, deployments.apps
        super().__init__(f'{resource} "{name}" not found')
        self.resource, self.name = resource, name


class AlreadyExists(StatusError):
    reason = "AlreadyExists"

    def __init__(self, resource: str, name: str):
        super().__init__(f'{resource} "{name}" already exists')
        self.resource, self.name = resource, name


class Conflict(StatusError):
    reason = "Conflict"


class Forbidden(StatusError):
    reason = "Forbidden"


class BadRequest(StatusError):
    reason = "BadRequest"


class TooManyRequests(StatusError):
    """apierrors.NewTooManyRequests (HTTP 429): the client may retry later."""

    reason = "TooManyRequests"


class InternalError(StatusError):
    """apierrors.NewInternalError(err): ``Internal error occurred: <err>``; ``detail`` is err."""

    reason = "InternalError"

    def __init__(self, detail: str):
        super().__init__(f"Internal error occurred: {detail}")
        self.detail = detail


class FieldError:
    """One cause of an Invalid error: field path, type and detail (apimachinery field.Error).
    Equal, hashed and shown by its fields, as a frozen dataclass (written out: every command
    imports this module, and ``dataclasses`` with it would cost its start-up ~8 ms;
    ``kubesim.api.record`` is not within this module's reach)."""

    __slots__ = ("detail", "field", "has_value", "type", "value")

    def __init__(self, field: str, type: str, detail: str = "", value: object = None, has_value: bool = False):
        self.field = field
        self.type = type  # "Required value", "Invalid value", "Unsupported value", "Duplicate value", "Forbidden"
        self.detail = detail
        self.value = value
        self.has_value = has_value

    def _values(self) -> tuple:
        return (self.field, self.type, self.detail, self.value, self.has_value)

    def __eq__(self, other):
        if other.__class__ is self.__class__:
            return self._values() == other._values()
        return NotImplemented

    def __hash__(self) -> int:
        return hash(self._values())

    def __repr__(self) -> str:
        return (f"FieldError(field={self.field!r}, type={self.type!r}, detail={self.detail!r}, "
                f"value={self.value!r}, has_value={self.has_value!r})")

    def __str__(self) -> str:
        # field.Error.Error(): "<field>: <type>[: <value>][: <detail>]"
        s = f"{self.field}: {self.type}"
        if self.has_value:
            s += ": " + _format_value(self.value)
        if self.detail:
            s += ": " + self.detail
        return s


def _format_value(v: object) -> str:
    # ErrorBody: %q for a string, %v for a number or bool; any other value arrives already as
    # the text json.Marshal writes for it (kubesim.api.gojson.GoJSON) and prints as it is.
    if isinstance(v, str):
        return '"' + v.replace('\\', '\\\\').replace('"', '\\"') + '"'
    if isinstance(v, bool):
        return "true" if v else "false"
    if v is None:
        return "null"
    return str(v)


def required(field: str, detail: str = "") -> FieldError:
    return FieldError(field, "Required value", detail)


def invalid(field: str, value: object, detail: str) -> FieldError:
    return FieldError(field, "Invalid value", detail, value, True)


def unsupported(field: str, value: object, supported: list[str]) -> FieldError:
    quoted = ", ".join(f'"{s}"' for s in supported)
    return FieldError(field, "Unsupported value", f"supported values: {quoted}", value, True)


def duplicate(field: str, value: object) -> FieldError:
    return FieldError(field, "Duplicate value", "", value, True)


def forbidden(field: str, detail: str) -> FieldError:
    return FieldError(field, "Forbidden", detail)


class Invalid(StatusError):
    """``The Pod "x" is invalid: spec.containers[0].image: Required value`` (apierrors.NewInvalid).

    kubectl writes it with MultilineError, which ends the text with a newline of its own, so a
    cause that ends in a newline (a pod-update diff) is followed by a blank line:
    ``multiline_error`` tells the CLI not to fold that away."""

    reason = "Invalid"
    multiline_error = True

    def __init__(self, kind: str, name: str, causes: list[FieldError]):
        self.kind, self.name, self.causes = kind, name, list(causes)
        if len(self.causes) == 1:
            detail = str(self.causes[0])
        else:
            detail = "[" + ", ".join(str(c) for c in self.causes) + "]"
        super().__init__(f'{kind} "{name}" is invalid: {detail}')

    def __str__(self) -> str:
        # kubectl's checkErr prints Invalid errors without "Error from server", one cause inline,
        # several as a bulleted list (cmd/util/helpers.go MultilineError).
        head = f'The {self.kind} "{self.name}" is invalid: '
        if len(self.causes) == 1:
            return head + str(self.causes[0])
        return head + "\n" + "\n".join("* " + str(c) for c in self.causes)


class RequestInvalid(StatusError):
    """An Invalid status without kind or name (``errors.NewInvalid(schema.GroupKind{}, "", ...)``
    or a 422 generic response): kubectl prints ``The request is invalid[: causes]``."""

    reason = "Invalid"

    def __init__(self, causes: list[str] | None = None):
        self.causes = list(causes or [])
        super().__init__("The request is invalid")

    def __str__(self) -> str:
        if not self.causes:
            return "The request is invalid"
        if len(self.causes) == 1:
            return "The request is invalid: " + self.causes[0]
        return "The request is invalid: \n" + "\n".join("* " + c for c in self.causes)


class ClientValidationError(KubesimError):
    """kubectl's client-side schema validation failure for one document of one file."""

    def __init__(self, source: str, detail: str):
        super().__init__(detail)
        self.source, self.detail = source, detail

    def __str__(self) -> str:
        return (f'error: error validating "{self.source}": error validating data: {self.detail}; '
                "if you choose to ignore these errors, turn validation off with --validate=false")


class ParseError(KubesimError):
    """A manifest that cannot be decoded (YAML/JSON syntax, size, aliases)."""

    def __init__(self, source: str, detail: str):
        super().__init__(detail)
        self.source, self.detail = source, detail

    def __str__(self) -> str:
        return f'error: error parsing {self.source}: {self.detail}'


class StateError(KubesimError):
    """The state directory cannot be opened or written."""

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return "error: " + self.message


class Aggregate(KubesimError):
    """Several errors from one command (e.g. one per invalid document), printed one per line."""

    def __init__(self, errors: list[KubesimError]):
        super().__init__("; ".join(str(e) for e in errors))
        self.errors = list(errors)

    def __str__(self) -> str:
        return "\n".join(str(e) for e in self.errors)


class WithSource(KubesimError):
    """An API error about one object from a file: kubectl's AddSourceToErr
    (``error when creating "f.yaml": ...``) for the errors it decorates."""

    def __init__(self, err: StatusError, verb: str, where: str):
        # where: '"f.yaml"', or '"f.yaml" (document 2)' when the file holds several documents
        super().__init__(str(err))
        self.err, self.verb, self.where = err, verb, where

    @property
    def multiline_error(self) -> bool:
        return getattr(self.err, "multiline_error", False)

    def __str__(self) -> str:
        if self.err.reason == "Invalid":
            return str(self.err)
        return f'Error from server ({self.err.reason}): error when {self.verb} {self.where}: {self.err.message}'
