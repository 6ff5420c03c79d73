"""The resource builder: the one place verbs turn ``TYPE NAME...``, ``TYPE/NAME...``, ``TYPE``
with ``-l``/``--all``, ``-f FILE`` or node names into objects — and the client-side checks a
manifest gets before it is sent (kind known, schema-valid, namespace consistent).

Upstream: staging/src/k8s.io/cli-runtime/pkg/resource/builder.go (``ResourceTypeOrNameArgs``,
``SelectorParam``, ``SelectAllParam``, ``FilenameParam``, and its errors) as kubectl's verbs use
it, and kubectl's client-side validation (staging/src/k8s.io/kubectl/pkg/validation: ``error
validating "f.yaml": error validating data: ...``) and namespace enforcement
(resource.Info's ``--namespace`` mismatch error).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING

from kubesim.api import kinds
from kubesim.api.kinds import KindInfo
from kubesim.api.objcopy import deep_copy
from kubesim.api.record import Record
from kubesim.errors import (
    Aggregate,
    BadRequest,
    ClientValidationError,
    Invalid,
    KubesimError,
    NotFound,
    RawError,
    UsageError,
    required,
)

if TYPE_CHECKING:  # codec.load costs pathlib at start-up; a verb that reads no file need not pay it
    from kubesim.codec.load import Document

NO_RESOURCES = ("You must provide one or more resources by argument or filename.\n"
                "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n"
                "   '<resource> <name>'\n   '<resource>'")


class Prepared(Record):
    __slots__ = ("doc", "info", "obj", "position", "where")

    def __init__(self, doc: Document, info: KindInfo, obj: dict, where: str, position: int = 0):
        self.doc = doc
        self.info = info
        self.obj = obj
        self.where = where          # '"f.yaml"' or '"f.yaml" (document 2)'
        self.position = position    # index among all documents of the command

    @property
    def name(self) -> str:
        return self.obj["metadata"]["name"]

    @property
    def namespace(self) -> str:
        return self.obj["metadata"].get("namespace", "") if self.info.namespaced else ""


def _where(doc: Document, multi: bool) -> str:
    return f'"{doc.source}" (document {doc.index})' if multi else f'"{doc.source}"'


def _nameless(info: KindInfo, md: dict, verb: str, where: str, applying: bool) -> KubesimError | None:
    """A document without a name: what each verb meets (apply.go, replace.go, delete.go; the
    client refuses an empty name before any request, create leaves it to the server)."""
    if applying:
        if md.get("generateName"):
            return RawError(f"error: from {md['generateName']}: cannot use generate name with apply")
        return RawError("error: error when retrieving current configuration of:\n"
                        f'Resource: "{info.group}/{info.version}, Resource={info.plural}", '
                        f'GroupVersionKind: "{info.group}/{info.version}, Kind={info.kind}"\n'
                        f'Name: "", Namespace: "{md.get("namespace", "")}"\n'
                        f"from server for: {where}: resource name may not be empty")
    if verb == "getting":  # RetrieveLatest leaves a nameless object as the file has it
        return None
    if verb in ("replacing", "deleting"):
        return RawError(f"error: error when {verb} {where}: resource name may not be empty")
    if not md.get("generateName"):
        return Invalid(info.kind, "", [required("metadata.name", "name or generateName is required")])
    return None


def _object_kind_errors(obj: dict) -> list[str]:
    """kubectl's validation getObjectKind (pkg/validation/validation.go): apiVersion and kind
    must be set and be strings, apiVersion a group/version."""
    errs = []
    for field in ("apiVersion", "kind"):
        value = obj.get(field)
        if value is None or value == "":
            errs.append(f"{field} not set")
        elif not isinstance(value, str):
            errs.append(f"{field} isn't string type")
        elif field == "apiVersion" and value.count("/") > 1:
            errs.append(f"unexpected GroupVersion string: {value}")  # schema.ParseGroupVersion
    return errs


def prepare(docs: list[Document], namespace_flag: str | None, verb: str,
            explicit_namespace: bool = False, collect: bool = False, applying: bool = False,
            default_namespace: str = "default", server_side: bool = False):
    """Client-side checks for every document: kind known, schema-valid, namespace consistent.

    Raises the errors; with ``collect`` returns ``(prepared, errors)`` instead, errors as
    ``(position, error)`` so a command can report them with the server's, in document order.
    A document without a namespace gets ``-n``, else ``default_namespace`` (the context's).
    ``server_side`` (apply --server-side): unknown fields are left to the server's apply."""
    from kubesim.codec.schema import (
        format_bad_request,
        is_strict_message,
        validate_structure,
    )

    counts: dict[str, int] = {}
    for d in docs:
        counts[d.source] = counts.get(d.source, 0) + 1
    out: list[Prepared] = []
    errors: list = []
    for position, doc in enumerate(docs):
        obj = doc.obj
        where = _where(doc, counts[doc.source] > 1)
        problems = _object_kind_errors(obj)
        if problems:
            detail = problems[0] if len(problems) == 1 else "[" + ", ".join(problems) + "]"
            errors.append((position, _client_error(doc, counts[doc.source] > 1, detail)))
            continue
        info = kinds.for_object(obj)
        if info is None:
            md = obj.get("metadata") if isinstance(obj.get("metadata"), dict) else {}
            # builder.go mappingFor: the document's own name and namespace, the file as given
            errors.append((position, UsageError(
                f'resource mapping not found for name: "{md.get("name", "")}" namespace: "{md.get("namespace", "")}" '
                f'from "{doc.source}": '
                f'no matches for kind "{obj["kind"]}" in version "{obj["apiVersion"]}"\n'
                "ensure CRDs are installed first")))
            continue
        if not info.served:
            out.append(Prepared(doc, info, copy.deepcopy(obj), where, position))
            continue
        messages = validate_structure(obj)
        if server_side:
            messages = [m for m in messages if not is_strict_message(m)]
        if messages:
            line = format_bad_request(doc.source, obj, messages, verb)
            if counts[doc.source] > 1:
                line = line.replace(f'"{doc.source}"', where, 1)
            errors.append((position, RawError(line)))
            continue
        obj = deep_copy(obj)
        md = obj.setdefault("metadata", {})
        if info.namespaced:
            if md.get("namespace") and explicit_namespace and namespace_flag and md["namespace"] != namespace_flag:
                errors.append((position, UsageError(
                    f'the namespace from the provided object "{md["namespace"]}" does not match the namespace '
                    f'"{namespace_flag}". You must pass \'--namespace={md["namespace"]}\' to perform this operation.')))
                continue
            md["namespace"] = md.get("namespace") or namespace_flag or default_namespace
        else:
            md.pop("namespace", None)
        if not md.get("name"):
            err = _nameless(info, md, verb, where, applying)
            if err is not None:
                errors.append((position, err))
                continue
        out.append(Prepared(doc, info, obj, where, position))
    if collect:
        return out, errors
    if errors:
        raise aggregate([e for _, e in errors])
    return out


def _client_error(doc: Document, multi: bool, detail: str) -> KubesimError:
    if multi:
        return RawError(f'error: error validating "{doc.source}" (document {doc.index}): error validating data: '
                    f'{detail}; if you choose to ignore these errors, turn validation off with --validate=false')
    return ClientValidationError(doc.source, detail)


def aggregate(errors: list[KubesimError]) -> KubesimError:
    """One error as is, several as kubectl's aggregate (one a line)."""
    from kubesim.errors import Aggregate

    return errors[0] if len(errors) == 1 else Aggregate(errors)


def parse_targets(words: list[str], selecting: bool = False):
    """kubectl's resource arguments: ``TYPE NAME...``, ``TYPE1,TYPE2``, or ``TYPE/NAME ...`` →
    [(KindInfo, [names])]. ``selecting``: the command also has a selector or ``--all``, which the
    builder does not combine with names."""
    if any("/" in w for w in words):
        if selecting:
            raise UsageError("selectors and the all flag cannot be used when passing resource/name arguments")
        out = []
        for w in words:
            if "/" not in w:
                raise UsageError("there is no need to specify a resource type as a separate argument when "
                                 "passing arguments in resource/name form (e.g. 'kubesim get resource/<resource_name>' "
                                 "instead of 'kubesim get resource resource/<resource_name>'")
            t, n = w.split("/", 1)
            info = kinds.lookup(t)
            if out and out[-1][0] is info:
                out[-1][1].append(n)
            else:
                out.append((info, [n]))
        return out
    types = [kinds.lookup(t) for t in words[0].split(",") if t]
    names = words[1:]
    if names and len(types) > 1:
        raise UsageError("arguments in resource/name form must have a single resource and name")
    if names and selecting:
        raise UsageError("name cannot be provided when a selector is specified")
    return [(t, list(names)) for t in types]


def select(client, info: KindInfo, ns: str | None, label_selector: str | None = None,
           field_selector: str | None = None, omit: tuple[str, ...] = ()) -> list[dict]:
    """The builder's Selector visitor (cli-runtime resource/selector.go): the server's list, its
    BadRequest reworded to name the resource and the selectors, "without hiding this is an API
    error". ``omit``: paths the caller will not read (``Client.list``)."""
    try:
        return client.list(info, ns, label_selector, field_selector, omit) if omit else \
            client.list(info, ns, label_selector, field_selector)
    except BadRequest as e:
        raise _list_error(info, e, label_selector, field_selector) from None


def select_pieces(client, info: KindInfo, ns: str | None, label_selector: str | None = None,
                  field_selector: str | None = None, omit: tuple[str, ...] = (), table: bool = False):
    """``select`` page by page (``Client.list_pieces``, kubectl's chunked LIST): the same
    objects, a list of at most 500 at a time (``table``: as ``Client.list_pieces``)."""
    try:
        yield from client.list_pieces(info, ns, label_selector, field_selector, omit, table=table)
    except BadRequest as e:
        raise _list_error(info, e, label_selector, field_selector) from None


def _list_error(info: KindInfo, e: BadRequest, label_selector: str | None, field_selector: str | None):
    resource = f'"{info.group}/{info.version}, Resource={info.plural}"'
    if label_selector or field_selector:
        return BadRequest(f'Unable to find {resource} that match label selector "{label_selector or ""}", '
                          f'field selector "{field_selector or ""}": {e.message}')
    return BadRequest(f"Unable to list {resource}: {e.message}")


def lookup(client, targets, ns: str | None, selector: str | None = None, every: bool = False,
           continue_on_error: bool = False) -> list[tuple]:
    """[(KindInfo, copy of the live object)] for parsed resource arguments: each named object
    (NotFound for a missing one, before anything changes); for a type given without names,
    every object of it in ``ns`` (None: all namespaces) that ``selector`` matches, when there is
    a selector or ``every`` (``--all``, or a verb that takes a bare type) allows it.

    ``continue_on_error`` is the builder's ContinueOnError: every missing name is reported, one
    line each (kubectl would still change the objects found; kubesim changes nothing)."""
    out, missing = [], []
    for info, names in targets:
        if names:
            for n in names:
                try:
                    out.append((info, copy.deepcopy(client.get(info, ns or "", n))))
                except NotFound as e:
                    if not continue_on_error:
                        raise
                    missing.append(e)
        elif every or selector:
            out.extend((info, copy.deepcopy(o)) for o in select(client, info, ns, selector))
        else:
            raise UsageError("resource(s) were provided, but no name was specified")
    if missing:
        raise missing[0] if len(missing) == 1 else Aggregate(missing)
    return out


def nodes(client, names: list[str], selector: str | None) -> list[dict]:
    """The nodes cordon, uncordon and drain act on: those named, else those ``selector`` matches."""
    return [obj for _, obj in lookup(client, [(kinds.by_kind("Node"), list(names))], None, selector, every=True)]


def resolve(client, f, args, words: list[str], allow_type_only: bool, filenames=None, selector=None,
            all_=False, single_type=False, stdin=None) -> list[tuple]:
    """The resource builder: [(KindInfo, live object)] for ``TYPE NAME...``, ``TYPE/NAME...``,
    ``TYPE`` (every object of the type, when the verb allows it), ``-l``, ``--all`` or ``-f``.
    Raises NotFound for a missing name before anything changes. ``f`` is the command's factory
    (its namespace)."""
    out = []
    if filenames:
        from kubesim.codec.load import load

        docs = load(filenames, recursive=getattr(args, "recursive", False), stdin=stdin)
        for p in prepare(docs, f.namespace_flag, "getting", explicit_namespace=f.explicit_namespace,
                         default_namespace=f.namespace()):
            out.append((p.info, copy.deepcopy(client.get(p.info, p.namespace, p.name))))
    if words:
        targets = parse_targets(words, selecting=bool(selector or all_))
        if single_type and len({t[0].kind for t in targets}) > 1:
            raise UsageError("you may only specify a single resource type")
        out.extend(lookup(client, targets, f.namespace(), selector, every=allow_type_only or all_))
    elif not filenames:
        raise UsageError(NO_RESOURCES)
    return out


def targets_from_args(client, f, args, env) -> list[tuple]:
    """(info, object) of each object a verb such as ``expose`` or ``autoscale`` names: from
    ``-f`` files (``-R``), or TYPE NAME / TYPE/NAME arguments looked up in the cluster."""
    if args.filename:
        from kubesim.codec.load import load

        docs = load(args.filename, recursive=args.recursive, stdin=env.stdin)
        return [(p.info, p.obj) for p in prepare(docs, f.namespace_flag, "getting",
                                                 explicit_namespace=f.explicit_namespace,
                                                 default_namespace=f.namespace())]
    if not args.args:
        raise UsageError(NO_RESOURCES)
    return lookup(client, parse_targets(args.args), f.namespace())
