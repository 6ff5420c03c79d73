"""Resource arguments and the objects they name: the one place the verbs turn ``TYPE NAME...``,
``TYPE/NAME...``, ``TYPE`` with ``-l``/``--all``, ``-f FILE`` or node names into live objects.

Upstream: staging/src/k8s.io/cli-runtime/pkg/resource/builder.go (the resource builder:
``ResourceTypeOrNameArgs``, ``SelectorParam``, ``SelectAllParam``, ``FilenameParam``, and its
errors) as kubectl's verbs use it.
"""

from __future__ import annotations

from kubesim.cli.session import namespace
from kubesim.errors import NotFound, UsageError

NO_RESOURCES = ("You must provide one or more resources by argument or filename.\n"
                "Example resource specifications include:\n   '-f rsrc.yaml'\n   '--filename=rsrc.json'\n"
                "   '<resource> <name>'\n   '<resource>'")


def parse_targets(words: list[str]):
    """kubectl's resource arguments: ``TYPE NAME...``, ``TYPE1,TYPE2``, or ``TYPE/NAME ...`` →
    [(KindInfo, [names])]."""
    from kubesim.api import kinds

    if any("/" in w for w in words):
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
    return [(t, list(names)) for t in types]


def lookup(cluster, targets, ns: str | None, selector: str | None = None, every: bool = False) -> list[tuple]:
    """[(KindInfo, copy of the live object)] for parsed resource arguments: each named object
    (NotFound for a missing one, before anything changes); for a type given without names,
    every object of it in ``ns`` (None: all namespaces) that ``selector`` matches, when there is
    a selector or ``every`` (``--all``, or a verb that takes a bare type) allows it."""
    import copy

    from kubesim.apiserver import objects

    out = []
    for info, names in targets:
        if names:
            for n in names:
                obj = cluster.store.get(info.kind, (ns or "") if info.namespaced else "", n)
                if obj is None:
                    raise NotFound(info.resource, n)
                out.append((info, copy.deepcopy(obj)))
        elif every or selector:
            objs, _ = objects.select(cluster, info, [], ns, selector)
            out.extend((info, copy.deepcopy(o)) for o in objs)
        else:
            raise UsageError("resource(s) were provided, but no name was specified")
    return out


def nodes(cluster, names: list[str], selector: str | None) -> list[dict]:
    """The nodes cordon, uncordon and drain act on: those named, else those ``selector`` matches."""
    from kubesim.api import kinds

    return [obj for _, obj in lookup(cluster, [(kinds.by_kind("Node"), list(names))], None, selector, every=True)]


def resolve(cluster, args, words: list[str], allow_type_only: bool, filenames=None, selector=None,
            all_=False, single_type=False, stdin=None) -> list[tuple]:
    """The resource builder: [(KindInfo, live object)] for ``TYPE NAME...``, ``TYPE/NAME...``,
    ``TYPE`` (every object of the type, when the verb allows it), ``-l``, ``--all`` or ``-f``.
    Raises NotFound for a missing name before anything changes."""
    import copy

    from kubesim.apiserver import objects

    ns = namespace(args)
    out = []
    if filenames:
        from kubesim.codec.load import load

        docs = load(filenames, recursive=getattr(args, "recursive", False), stdin=stdin)
        for p in objects.prepare(docs, args.namespace, "getting", explicit_namespace=bool(args.namespace)):
            obj = cluster.store.get(p.info.kind, p.namespace, p.name)
            if obj is None:
                raise NotFound(p.info.resource, p.name)
            out.append((p.info, copy.deepcopy(obj)))
    if words:
        targets = parse_targets(words)
        if single_type and len({t[0].kind for t in targets}) > 1:
            raise UsageError("you may only specify a single resource type")
        out.extend(lookup(cluster, targets, ns, selector, every=allow_type_only or all_))
    elif not filenames:
        raise UsageError(NO_RESOURCES)
    return out
