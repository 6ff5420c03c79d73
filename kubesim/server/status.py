"""Errors as the API server writes them: a ``metav1.Status`` with reason, code and details, which
kubectl turns back into its usual texts (``Error from server (NotFound): pods "x" not found``,
``The Pod "x" is invalid: ...``).

Upstream: staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go (NewNotFound, NewAlreadyExists,
NewConflict, NewInvalid: each cause's ``field``, ``reason`` (the field.ErrorType) and ``message``
(ErrorBody)), staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/status.go.
"""

from __future__ import annotations

from kubesim.errors import (
    AlreadyExists,
    Invalid,
    KubesimError,
    NotFound,
    RequestInvalid,
    StatusError,
)

CODES = {
    "BadRequest": 400, "Unauthorized": 401, "Forbidden": 403, "NotFound": 404, "MethodNotAllowed": 405,
    "NotAcceptable": 406, "AlreadyExists": 409, "Conflict": 409, "Gone": 410, "Expired": 410, "RequestEntityTooLarge": 413,
    "UnsupportedMediaType": 415, "Invalid": 422, "TooManyRequests": 429, "InternalError": 500,
    "ServiceUnavailable": 503, "Timeout": 504,
}

# field.ErrorType -> its CauseType (field/errors.go)
_CAUSE_TYPES = {
    "Required value": "FieldValueRequired", "Invalid value": "FieldValueInvalid",
    "Unsupported value": "FieldValueNotSupported", "Duplicate value": "FieldValueDuplicate",
    "Forbidden": "FieldValueForbidden", "Not found": "FieldValueNotFound", "Too long": "FieldValueTooLong",
    "Too many": "FieldValueTooMany", "Internal error": "InternalError",
}


def status(reason: str, message: str, details: dict | None = None, code: int | None = None) -> dict:
    out = {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
           "reason": reason}
    if details:
        out["details"] = details
    out["code"] = code or CODES.get(reason, 500)
    return out


def _split_resource(resource: str) -> dict:
    plural, _, group = resource.partition(".")
    return {"group": group, "kind": plural} if group else {"kind": plural}


def from_error(err: KubesimError) -> dict:
    """The Status of a kubesim error (a StatusError's reason; anything else, as kubectl would
    have refused it client-side, a BadRequest)."""
    if isinstance(err, Invalid):
        causes = [{"reason": _CAUSE_TYPES.get(c.type, c.type), "message": str(c)[len(c.field) + 2:],
                   "field": c.field} for c in err.causes]
        group = getattr(err, "group", "")
        details = {"name": err.name, **({"group": group} if group else {}), "kind": err.kind, "causes": causes}
        return status("Invalid", err.message, details)
    if isinstance(err, RequestInvalid):
        causes = [{"message": c} for c in err.causes]
        return status("Invalid", str(err), {"causes": causes} if causes else None)
    if isinstance(err, (NotFound, AlreadyExists)):
        return status(err.reason, err.message, {"name": err.name, **_split_resource(err.resource)})
    if isinstance(err, StatusError):
        return status(err.reason, err.message, getattr(err, "details", None))
    text = str(err)
    text = text.removeprefix("error: ")
    return status("BadRequest", text.split("\nSee '")[0])


def not_found_path() -> dict:
    """An unknown path: ``the server could not find the requested resource`` (404)."""
    return status("NotFound", "the server could not find the requested resource", {})
