"""kubectl explain RESOURCE[.FIELD...]: documentation of a resource and its fields.

Upstream (kubectl v1.36, k8s.io/kubectl v0.36.3): pkg/cmd/explain/explain.go (flags, Validate's errors and
Run); the printing is kubesim.kubectl.explain (and explain_v2 for
``--output=plaintext-openapiv2``). The resource resolves through discovery (the
kinds kubesim serves, as ``api-resources`` lists them); its documentation is the v1.35 API
server's OpenAPI v3 (kubesim.api.openapi). Nothing in the state is read: explain opens none.
"""

from __future__ import annotations

_SUGGEST = "Use \"kubectl api-resources\" for a complete list of supported resources."


def add_flags(p):
    p.add_argument("args", nargs="*")
    p.add_argument("-R", "--recursive", nargs="?", const="true", default="false",
                   help="Print the fields of fields (Currently only 1 level deep)")
    p.add_argument("--api-version", default="",
                   help="Get different explanations for particular API version (API group/version)")
    p.add_argument("-o", "--output", default="plaintext",
                   help="Format in which to render the schema (plaintext, plaintext-openapiv2)")


def _fields(text: str) -> list[str] | None:
    """The field names of a dotted path as kubectl's jsonpath parser reads ``{.text}``, or None
    when a part is not a plain field (``[0]``, ``..``)."""
    text = text.removesuffix(".")
    parts = text.split(".")
    if any(not p or any(c in p for c in "[]{}()*@$'\" ,") for p in parts):
        return None
    return parts


def _split(arg: str, with_prefix: bool):
    """explain.SplitAndParseResourceRequest[WithMatchingPrefix]: the resource's kind info and
    the field path."""
    from kubesim.api import kinds
    from kubesim.errors import RawError, UsageError

    if arg.removesuffix(".") == "":
        raise UsageError("a resource must be present, got: /, Resource=")
    if "," in arg:  # the jsonpath lexer stops at it
        raise UsageError("unrecognized character in action: U+002C ','")
    parts = _fields(arg)
    if parts is None:
        raise UsageError("invalid jsonpath syntax, first node must be field node")
    info = kinds.REGISTRY.find_name(parts[0])
    if info is None or not info.served:
        # kubectl prints this one without its usual "error: " (explain's mapper error is a
        # NoResourceMatchError printed as is)
        raise RawError(f'the server doesn\'t have a resource type "{parts[0]}"')
    if with_prefix and arg.startswith(info.resource):
        suffix = arg[len(info.resource):]
        rest = _fields(suffix[1:]) if suffix.startswith(".") and suffix != "." else ([] if suffix in ("", ".") else None)
        if rest is None:
            raise UsageError("invalid jsonpath syntax, first node must be field node")
        return info, rest
    return info, parts[1:]


def run(f, args, env) -> int:
    from kubesim.errors import RawError, UsageError
    from kubesim.kubectl import explain
    from kubesim.kubectl.cmd.util import bool_flag_value

    recursive = bool_flag_value(args.recursive, "-R, --recursive", "explain")
    if not args.args:
        raise RawError(f"error: You must specify the type of resource to explain. {_SUGGEST}\n")
    if len(args.args) > 1:
        raise RawError("error: We accept only this format: explain RESOURCE\n")
    info, path = _split(args.args[0], with_prefix=not args.api_version)
    group, version = info.group, info.version
    if args.output not in ("plaintext", "plaintext-openapiv2"):
        raise UsageError(f"unrecognized format: {args.output}")
    if args.api_version:
        group, version = _parse_group_version(args.api_version)
    if args.output == "plaintext-openapiv2":
        from kubesim.kubectl import explain_v2

        env.stdout.write(explain_v2.render((group, version, info.kind), path, recursive))
        return 0
    if info.crd is not None and not args.api_version:
        explain.render_custom(info, path, recursive, env.stdout.write)
        return 0
    explain.render(group, version, info.plural, path, recursive, env.stdout.write)
    return 0


def _parse_group_version(text: str) -> tuple[str, str]:
    """schema.ParseGroupVersion."""
    from kubesim.errors import UsageError

    if text in ("", "/"):
        return "", ""
    parts = text.split("/")
    if len(parts) == 1:
        return "", parts[0]
    if len(parts) == 2:
        return parts[0], parts[1]
    raise UsageError(f"unexpected GroupVersion string: {text}")
