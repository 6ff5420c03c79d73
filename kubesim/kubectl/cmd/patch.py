"""kubectl patch: a JSON, merge or strategic merge patch of the server's object (or, with
``--local``, of the file's).

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/patch/patch.go; what the server does with the patch
is ``kubesim.apiserver.patch``.
"""

from __future__ import annotations

import copy
import json

from kubesim.errors import RawError, UsageError
from kubesim.kubectl import polymorphichelpers as ph
from kubesim.kubectl.cmd.util import (
    bool_flag,
    change_cause,
    check_output,
    comparable,
    dry_run_strategy,
    dry_suffix,
    print_result,
    record_warning,
    result_line,
)
from kubesim.kubectl.resource import NO_RESOURCES, resolve

_PATCH_TYPES = ("json", "merge", "strategic")




def add_flags(p):
    p.add_argument("args", nargs="*", metavar="(-f FILENAME | TYPE NAME)")
    p.add_argument("-p", "--patch", default=None, help="The patch to be applied to the resource JSON file.")
    p.add_argument("--patch-file", default=None, help="A file containing a patch to be applied to the resource.")
    p.add_argument("--type", default="strategic", help="The type of patch being provided; one of [json merge strategic]")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("--local", action="store_true",
                   help="If true, patch will operate on the content of the file, not the server-side resource.")
    p.add_argument("-o", "--output", default=None, help="name|yaml|json")
    p.add_argument("--field-manager", default="kubectl-patch")
    p.add_argument("--subresource", default=None)
    bool_flag(p, "--record")
    p.add_argument("--dry-run", nargs="?", const="unchanged", default=None)


def parse_patch(text: str):
    """yaml.ToJSON of the patch: JSON as is, YAML converted; kubectl's error otherwise."""
    from kubesim.codec.load import yaml_to_json
    from kubesim.errors import ParseError

    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        docs = yaml_to_json("patch", text)
    except ParseError as e:
        detail = e.detail.replace("error converting YAML to JSON: ", "", 1)
        raise UsageError(f"unable to parse {json.dumps(text)}: {detail}") from None
    return docs[0] if docs else None


def run(f, args, env) -> int:
    from kubesim.api.patch import PatchFailure

    if args.patch is not None and args.patch_file is not None:
        raise UsageError("cannot specify --patch and --patch-file together")
    if not args.patch and not args.patch_file:
        raise UsageError("must specify --patch or --patch-file containing the contents of the patch")
    if args.local and args.args:
        raise UsageError("cannot specify --local and server resources")
    patch_type = args.type.lower()
    if patch_type not in _PATCH_TYPES:
        raise UsageError(f'--type must be one of [json merge strategic], not "{args.type}"')
    check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    if args.patch_file:
        try:
            with open(args.patch_file, encoding="utf-8") as fh:
                text = fh.read()
        except OSError as e:
            raise UsageError(f"unable to read patch file: open {args.patch_file}: "
                             f"{(e.strerror or str(e)).lower()}") from None
    else:
        text = args.patch
    patch = parse_patch(text)
    if args.local:
        return _patch_local(args, env, patch_type, patch)
    args._given_flags = [("patch", args.patch)] if args.patch is not None else [("patch-file", args.patch_file)]
    if args.type != "strategic":
        args._given_flags.append(("type", args.type))
    cause = change_cause(args, ["patch"] + args.args)
    record_warning(args, env)
    lines, shown, warnings = [], [], []
    with f.connect() as client:
        targets = resolve(client, f, args, args.args, False, args.filename, stdin=env.stdin)
        if not targets:
            raise UsageError("no objects passed to patch")
        for info, live in targets:
            ns, name = live["metadata"].get("namespace", ""), live["metadata"]["name"]
            try:
                new, warns = client.patch(info, ns, name, patch_type, patch)
            except PatchFailure as e:
                if getattr(e.error, "reason", "") == "UnsupportedMediaType":  # patch.go wraps it
                    media = {"json": "application/json-patch+json", "merge": "application/merge-patch+json"}.get(
                        patch_type, "application/strategic-merge-patch+json")
                    raise RawError(f"error: {media} is not supported by {info.group}/{info.version}, "
                                   f"Kind={info.kind}: {e.error.message}") from None
                raise e.error from None
            warnings.extend(warns)
            if args.subresource and info.crd is not None:
                _check_custom_subresource(info, name, args.subresource)
            if dry == "none" and args.subresource == "status":
                before = live["metadata"].get("resourceVersion")
                new = client.update_status(info, ns, name, new)
                changed = new["metadata"].get("resourceVersion") != before
            elif dry == "none":
                before = live["metadata"].get("resourceVersion")
                new = client.update(info, new)
                changed = new["metadata"].get("resourceVersion") != before
                if cause is not None:
                    new = client.update(info, ph.record(copy.deepcopy(new), cause))
            else:
                changed = comparable(new) != comparable(live)
            shown.append(new)
            word = "patched" if changed else "patched (no change)"
            lines.append(result_line(info, live, word + dry_suffix(dry), args.output))
    for w in warnings:
        env.stderr.write(f"Warning: {w}\n")
    print_result(env, args.output, shown, lines)
    return 0


def _check_custom_subresource(info, name: str, subresource: str) -> None:
    """A custom resource serves the status and scale subresources its CRD enables; the API
    server answers NotFound for the object on any other."""
    from kubesim.api.apiextensions.helpers import subresources_for_version
    from kubesim.errors import NotFound

    if subresource not in subresources_for_version(info.crd, info.version):
        raise NotFound(info.resource, name)


def _patch_local(args, env, patch_type: str, patch) -> int:
    """--local: the patch applied to the file's objects, client-side, nothing stored."""
    from kubesim.api import kinds
    from kubesim.api import patch as patches
    from kubesim.codec.load import load

    if not args.filename:
        raise UsageError(NO_RESOURCES)
    docs = load(args.filename, recursive=args.recursive, stdin=env.stdin)
    if not docs:
        raise UsageError("no objects passed to patch")
    shown, lines = [], []
    for doc in docs:
        obj = doc.obj
        try:
            if patch_type == "json":
                new = patches.json_patch(obj, patches.decode_json_patch(patch))
            elif patch_type == "merge":
                new = patches.json_merge_patch(obj, patch)
            else:
                new = patches.strategic_merge_patch(obj, patch)
        except patches.PatchFailure as e:
            raise UsageError(e.detail) from None
        shown.append(new)
        info = kinds.for_object(obj)
        if info is not None:
            lines.append(result_line(info, new, "patched" if new != obj else "patched (no change)", args.output))
    print_result(env, args.output, shown, lines)
    return 0
