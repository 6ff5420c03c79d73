"""patch, replace, edit.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/patch/patch.go, cmd/replace/replace.go,
cmd/edit/edit.go with cmd/util/editor/{editoptions.go, editor.go} (the edit loop, its header,
``Edit cancelled, no changes made.``, the ``A copy of your changes has been stored to ...``
message), and the API server's PATCH handler for what a patch does (``kubesim.engine.workloads``).

Where kubesim differs from kubectl:

- ``edit`` sends the change as a JSON merge patch computed from the object shown and the file
  saved (kubectl sends a two-way strategic merge patch). Both give the same object unless the
  object changed in between; kubesim re-reads it at save time, as the API server does.
- ``edit`` re-opens the editor, with the errors in the header, after an invalid edit, as kubectl
  does; an editor that saves the same invalid file again ends it with kubectl's
  ``Edit cancelled, no valid changes were saved.`` (a scripted $EDITOR therefore runs twice).
- ``replace --force`` deletes, lets the garbage collector finish, then creates, in one command.
"""

from __future__ import annotations

import copy
import json

from kubesim.cli.session import namespace, session
from kubesim.cli.flags import dry_run_strategy
from kubesim.cli.resources import NO_RESOURCES, resolve
from kubesim.cli.workloads import (_bool_flag, _check_output, _comparable, _dry_suffix, _line, _print_result,
                                   change_cause, record_warning)
from kubesim.errors import KubesimError, NotFound, RawError, StatusError, UsageError, WithSource

_PATCH_TYPES = ("json", "merge", "strategic")


# ---------------------------------------------------------------------------------------------
# patch


def patch_cmd_args(p):
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
    _bool_flag(p, "--record")
    p.add_argument("--dry-run", nargs="?", const="unchanged", default=None)


def parse_patch(text: str):
    """yaml.ToJSON of the patch: JSON as is, YAML converted; kubectl's error otherwise."""
    from kubesim.codec.load import _load_yaml
    from kubesim.errors import ParseError

    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        docs = _load_yaml("patch", text)
    except ParseError as e:
        detail = e.detail.replace("error converting YAML to JSON: ", "", 1)
        raise UsageError(f"unable to parse {json.dumps(text)}: {detail}") from None
    return docs[0] if docs else None


def patch_cmd(args, env) -> int:
    from kubesim.api.patch import PatchFailure
    from kubesim.engine import workloads as wl

    if args.patch is not None and args.patch_file is not None:
        raise UsageError("cannot specify --patch and --patch-file together")
    if not args.patch and not args.patch_file:
        raise UsageError("must specify --patch or --patch-file containing the contents of the patch")
    if args.local and args.args:
        raise UsageError("cannot specify --local and server resources")
    patch_type = args.type.lower()
    if patch_type not in _PATCH_TYPES:
        raise UsageError(f'--type must be one of [json merge strategic], not "{args.type}"')
    _check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    if args.patch_file:
        try:
            with open(args.patch_file, encoding="utf-8") as f:
                text = f.read()
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
    with session(args, env) as cluster:
        targets = resolve(cluster, args, args.args, False, args.filename, stdin=env.stdin)
        if not targets:
            raise UsageError("no objects passed to patch")
        for info, live in targets:
            try:
                new, warns = wl.patch_object(cluster, info, live, patch_type, patch)
            except PatchFailure as e:
                raise e.error from None
            warnings.extend(warns)
            changed = False
            if dry == "none":
                changed = wl.update(cluster, info, new, live)
                if cause is not None:
                    stored = cluster.store.get(info.kind, live["metadata"].get("namespace", ""),
                                               live["metadata"]["name"])
                    wl.update(cluster, info, wl.record(copy.deepcopy(stored), cause), stored)
                new = cluster.store.get(info.kind, live["metadata"].get("namespace", ""), live["metadata"]["name"])
            else:
                changed = _comparable(new) != _comparable(live)
            shown.append(new)
            word = "patched" if changed else "patched (no change)"
            lines.append(_line(info, live, word + _dry_suffix(dry), args.output))
    for w in warnings:
        env.stderr.write(f"Warning: {w}\n")
    _print_result(env, args.output, shown, lines)
    return 0


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
            lines.append(_line(info, new, "patched" if new != obj else "patched (no change)", args.output))
    _print_result(env, args.output, shown, lines)
    return 0


# ---------------------------------------------------------------------------------------------
# replace


def replace_cmd_args(p):
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("--force", action="store_true",
                   help="If true, immediately remove resources from API and bypass graceful deletion.")
    p.add_argument("--grace-period", type=int, default=-1)
    p.add_argument("--cascade", default="background")
    p.add_argument("--save-config", action="store_true",
                   help="If true, the configuration of current object will be saved in its annotation.")
    p.add_argument("--validate", default="strict")
    p.add_argument("-o", "--output", default=None, help="name|yaml|json")
    p.add_argument("--field-manager", default="kubectl-replace")
    _bool_flag(p, "--record")
    p.add_argument("--dry-run", nargs="?", const="unchanged", default=None)


def replace_cmd(args, env) -> int:
    from kubesim.codec.load import load
    from kubesim.apiserver import objects

    if not args.filename:
        raise UsageError("Must specify --filename to replace\nSee 'kubesim replace -h' for help and examples")
    _check_output(args.output)
    dry = dry_run_strategy(args.dry_run, env)
    docs = load(args.filename, recursive=args.recursive, stdin=env.stdin)
    if not docs:
        raise UsageError("no objects passed to replace")
    prepared = objects.prepare(docs, args.namespace, "replacing", explicit_namespace=bool(args.namespace))
    args._given_flags = []
    cause = change_cause(args, ["replace"])
    record_warning(args, env)
    deleted, lines, shown = [], [], []
    try:
        _replace(args, env, prepared, dry, cause, deleted, lines, shown)
    except _DryRunDone:
        pass
    for line in deleted:
        env.stdout.write(line + "\n")
    _print_result(env, args.output, shown, lines)
    return 0


def _replace(args, env, prepared, dry, cause, deleted, lines, shown) -> None:
    from kubesim.api.merge import LAST_APPLIED, last_applied_json
    from kubesim.apiserver import objects
    from kubesim.engine import workloads as wl
    from kubesim.errors import Conflict

    with session(args, env) as cluster:
        if args.force and dry == "none":
            from kubesim.controlplane.settle import settle

            for p in prepared:
                if cluster.store.get(p.info.kind, p.namespace, p.name) is not None:
                    obj = objects.delete_object(cluster, p.info, p.namespace, p.name)
                    deleted.append(objects.delete_line(p.info, obj))
            settle(cluster)
        for p in prepared:
            new = copy.deepcopy(p.obj)
            md = new.setdefault("metadata", {})
            annotations = md.get("annotations") or {}
            if args.save_config or LAST_APPLIED in annotations:
                md.setdefault("annotations", {})[LAST_APPLIED] = last_applied_json(new)
            wl.record(new, cause)
            try:
                if args.force and dry == "none":
                    objects.create_object(cluster, new, p.info)
                else:
                    live = cluster.store.get(p.info.kind, p.namespace, p.name)
                    if live is None:
                        raise NotFound(p.info.resource, p.name)
                    rv = md.get("resourceVersion")
                    if rv and rv != live["metadata"].get("resourceVersion"):
                        raise Conflict(f'Operation cannot be fulfilled on {p.info.resource} "{p.name}": the object has '
                                       "been modified; please apply your changes to the latest version and try again")
                    if dry == "none":
                        wl.update(cluster, p.info, new, copy.deepcopy(live))
            except StatusError as e:
                raise WithSource(e, "replacing", p.where) from None
            stored = cluster.store.get(p.info.kind, p.namespace, p.name)
            shown.append(stored if stored is not None else new)
            lines.append(_line(p.info, new, "replaced" + _dry_suffix(dry), args.output))
        if dry != "none":
            raise _DryRunDone(deleted, lines)


class _DryRunDone(KubesimError):
    def __init__(self, deleted, lines):
        super().__init__("dry run")
        self.deleted, self.lines = deleted, lines


# ---------------------------------------------------------------------------------------------
# edit

HEADER = ("# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
          "# and an empty file will abort the edit. If an error occurs while saving this file will be\n"
          "# reopened with the relevant failures.\n"
          "#\n")
MAX_ATTEMPTS = 20  # kubectl loops for as long as the user keeps saving new invalid edits


def edit_cmd_args(p):
    p.add_argument("args", nargs="*", metavar="(RESOURCE/NAME | -f FILENAME)")
    p.add_argument("-f", "--filename", action="append")
    p.add_argument("-R", "--recursive", action="store_true")
    p.add_argument("-o", "--output", default=None, help="yaml|json: the format to edit in")
    p.add_argument("--output-patch", action="store_true", help="Output the patch if the resource is edited.")
    p.add_argument("--save-config", action="store_true")
    p.add_argument("--validate", default="strict")
    p.add_argument("--windows-line-endings", action="store_true")
    p.add_argument("--field-manager", default="kubectl-edit")
    p.add_argument("--subresource", default=None)
    _bool_flag(p, "--record")


def _editor_command(env) -> tuple[list[str], bool]:
    """defaultEnvEditor: $KUBE_EDITOR, then $EDITOR, else vi; run through the shell when the
    value has quotes or backslashes."""
    editor = ""
    for var in ("KUBE_EDITOR", "EDITOR"):
        editor = env.vars.get(var) or ""
        if editor:
            break
    if not editor:
        editor = "vi"
    if " " not in editor:
        return [editor], False
    if not any(c in editor for c in "\"'\\"):
        return editor.split(" "), False
    shell = env.vars.get("SHELL") or "/bin/bash"
    return [shell, "-c", editor], True


def _launch(env, path: str) -> None:
    import subprocess

    args, shell = _editor_command(env)
    cmd = args[:-1] + [args[-1] + " " + json.dumps(path)] if shell else args + [path]
    streams = {}
    try:
        streams["stdin"] = env.stdin if env.stdin.fileno() >= 0 else subprocess.DEVNULL
        streams["stdout"] = env.stdout if env.stdout.fileno() >= 0 else None
        streams["stderr"] = env.stderr if env.stderr.fileno() >= 0 else None
        capture = False
    except (AttributeError, ValueError, OSError):
        streams = {"stdin": subprocess.DEVNULL, "stdout": subprocess.PIPE, "stderr": subprocess.PIPE}
        capture = True
    try:
        proc = subprocess.run(cmd, env={k: str(v) for k, v in env.vars.items()}, cwd=env.cwd, **streams)
    except FileNotFoundError:
        raise UsageError(f'unable to launch the editor "{" ".join(args)}"') from None
    except OSError:
        raise UsageError(f'there was a problem with the editor "{" ".join(args)}"') from None
    if capture:
        env.stdout.write(proc.stdout.decode("utf-8", "replace"))
        env.stderr.write(proc.stderr.decode("utf-8", "replace"))
    if proc.returncode != 0:
        raise UsageError(f'there was a problem with the editor "{" ".join(args)}"')


def manual_strip(text: str) -> str:
    """cmdutil.ManualStrip: drop comment lines (``#`` but not ``#!``)."""
    lines = text.split("\n")
    out = []
    for i, line in enumerate(lines):
        t = line.strip()
        if t.startswith("#") and not t.startswith("#!"):
            continue
        out.append(line + ("\n" if i < len(lines) - 1 else ""))
    return "".join(out)


def strip_comments(text: str) -> str:
    """cmdutil.StripComments: the YAML as JSON (so comments and layout do not count), or the text
    without comment lines when it does not parse."""
    from kubesim.codec.load import _load_yaml

    try:
        docs = _load_yaml("edit", text)
        return json.dumps(docs[0] if docs else None, sort_keys=True)
    except KubesimError:
        return manual_strip(text)


def _has_lines(text: str) -> bool:
    return any(line.strip() and not line.strip().startswith("#") for line in text.split("\n"))


def _header(reasons: list[tuple[str, list[str]]]) -> str:
    def hash_breaks(s: str) -> str:
        out = []
        for i, ch in enumerate(s):
            if ch == "\n" and i + 1 < len(s) and s[i + 1] != "#":
                out.append("\n# ")
            else:
                out.append(ch)
        return "".join(out)

    text = HEADER
    for head, other in reasons:
        text += f"# {hash_breaks(head)}:\n" if other else f"# {hash_breaks(head)}\n"
        for o in other:
            text += f"# * {hash_breaks(o)}\n"
        text += "#\n"
    return text


def _render(objs: list[dict], fmt: str) -> str:
    from kubesim.printers.output import to_json, to_yaml

    payload = objs[0] if len(objs) == 1 else {"apiVersion": "v1", "items": objs, "kind": "List", "metadata": {}}
    return to_json(payload) if fmt == "json" else to_yaml(payload)


def edit_cmd(args, env) -> int:
    import os
    import tempfile

    if args.output not in (None, "yaml", "json"):
        raise UsageError(f'unable to match a printer suitable for the output format "{args.output}", allowed '
                         "formats are: json,yaml")
    fmt = args.output or "yaml"
    if not args.args and not args.filename:
        raise UsageError(NO_RESOURCES)
    args._given_flags = []
    cause = change_cause(args, ["edit"] + args.args)
    record_warning(args, env)
    with session(args, env) as cluster:
        targets = resolve(cluster, args, args.args, True, args.filename, stdin=env.stdin)
    if not targets:
        raise UsageError("edit cancelled, no objects found")
    originals = []
    for info, obj in targets:
        obj = copy.deepcopy(obj)
        obj["metadata"].pop("managedFields", None)
        originals.append((info, obj))
    original_text = _header([]) + _render([o for _, o in originals], fmt)
    tmpdir = env.vars.get("TMPDIR") or tempfile.gettempdir()
    fd, path = tempfile.mkstemp(prefix="kubesim-edit-", suffix="." + fmt, dir=tmpdir)
    os.close(fd)
    buffer, reasons, contains_error, edited = original_text, [], False, None
    for _attempt in range(MAX_ATTEMPTS):
        with open(path, "w", encoding="utf-8") as f:
            f.write(buffer)
        previous = edited
        _launch(env, path)
        with open(path, encoding="utf-8") as f:
            edited = f.read()
        if contains_error and strip_comments(previous) == strip_comments(edited):
            return _preserved(env, path, "error: Edit cancelled, no valid changes were saved.")
        if strip_comments(original_text) == strip_comments(edited):
            os.remove(path)
            env.stderr.write("Edit cancelled, no changes made.\n")
            return 0
        if not _has_lines(edited):
            os.remove(path)
            env.stderr.write("Edit cancelled, saved file was empty.\n")
            return 0
        try:
            updated = _parse_edited(edited)
        except KubesimError as e:
            contains_error = True
            reasons = [(f"The edited file had a syntax error: {e}", [])]
            buffer = _header(reasons) + manual_strip(edited)
            continue
        contains_error = False
        outcome = _apply_edits(args, env, originals, updated, cause, path)
        if isinstance(outcome, int):
            return outcome
        reasons = outcome
        contains_error = True
        buffer = _header(reasons) + manual_strip(edited)
    return _preserved(env, path, "error: Edit cancelled, no valid changes were saved.")


def _parse_edited(text: str) -> list[dict]:
    from kubesim.codec.load import parse_documents

    docs = parse_documents("edited file", manual_strip(text))
    for d in docs:
        if not d.obj.get("kind"):
            raise UsageError(f"Object 'Kind' is missing in '{json.dumps(d.obj, separators=(',', ':'))}'")
    return [d.obj for d in docs]


def _preserved(env, path: str, message: str) -> int:
    import os

    if os.path.exists(path):
        env.stderr.write(f'A copy of your changes has been stored to "{path}"\n')
    raise RawError(message)


def _apply_edits(args, env, originals, updated: list[dict], cause, path):
    """visitToPatch for every edited object; an exit code, or the reasons to re-open the editor."""
    import os

    from kubesim.api.gofmt import go_sprint
    from kubesim.api.merge import LAST_APPLIED, last_applied_json
    from kubesim.api.patch import PatchFailure, create_merge_patch, json_merge_patch
    from kubesim.engine import workloads as wl
    from kubesim.errors import Invalid, RequestInvalid

    ns = namespace(args)
    for obj in updated:
        md = obj.get("metadata") or {}
        info = next((i for i, o in originals if o["kind"] == obj.get("kind")), None)
        if info is not None and info.namespaced and md.get("namespace") and md["namespace"] != ns:
            return _preserved(env, path, f'error: the namespace from the provided object "{md["namespace"]}" does not '
                                         f'match the namespace "{ns}". You must pass \'--namespace={md["namespace"]}\' '
                                         "to perform this operation.")
        if args.save_config:
            md.setdefault("annotations", {})[LAST_APPLIED] = last_applied_json(obj)
        wl.record(obj, cause)
    reasons, retryable, notfound, invalid = [], 0, 0, 0
    lines = []
    for obj in updated:
        uid = (obj.get("metadata") or {}).get("uid")
        match = next(((i, o) for i, o in originals if o["metadata"].get("uid") == uid), None)
        if match is None:
            return _preserved(env, path, f"error: no original object found for {go_sprint(obj)}")
        info, original = match
        if obj == original:
            lines.append(_line(info, original, "skipped", None))
            continue
        if obj.get("apiVersion") != original.get("apiVersion") or obj.get("kind") != original.get("kind") or \
                (obj.get("metadata") or {}).get("name") != original["metadata"]["name"]:
            return _preserved(env, path, "error: At least one of apiVersion, kind and name was changed")
        patch = create_merge_patch(original, obj)
        if args.output_patch:
            env.stdout.write("Patch: " + json.dumps(patch, separators=(",", ":"), sort_keys=True) + "\n")
        name = original["metadata"]["name"]
        resource = info.resource
        try:
            with session(args, env) as cluster:
                live = wl.get_live(cluster, info, original["metadata"].get("namespace", ""), name)
                new = json_merge_patch(copy.deepcopy(live), patch)
                _strict_decode(new)
                wl.update(cluster, info, new, live)
            lines.append(_line(info, original, "edited", None))
        except (StatusError, PatchFailure) as e:
            err = e.error if isinstance(e, PatchFailure) else e
            for line in lines:
                env.stdout.write(line + "\n")
            lines = []
            if getattr(err, "reason", "") == "Invalid":
                invalid += 1
                causes = [str(c) for c in err.causes] if isinstance(err, (Invalid, RequestInvalid)) else []
                reasons.append((f'{resource} "{name}" was not valid', causes))
                env.stderr.write(f'error: {resource} "{name}" is invalid\n')
            elif getattr(err, "reason", "") == "NotFound":
                notfound += 1
                env.stderr.write(f'error: {resource} "{name}" could not be found on the server\n')
            else:
                retryable += 1
                env.stderr.write(f'error: {resource} "{name}" could not be patched: {getattr(err, "message", err)}\n')
    for line in lines:
        env.stdout.write(line + "\n")
    if retryable:
        env.stderr.write(f"You can run `kubesim replace -f {path}` to try this update again.\n")
        return 1
    if notfound:
        env.stderr.write(f'The edits you made on deleted resources have been saved to "{path}"\n')
        return 1
    if not invalid:
        os.remove(path)
        return 0
    return reasons


def _strict_decode(obj: dict) -> None:
    """The typed decode with fieldValidation=Strict (kubectl edit's default --validate)."""
    from kubesim.api.gofmt import go_quote
    from kubesim.api.patch import PatchFailure
    from kubesim.codec.schema import is_strict_message, validate_structure
    from kubesim.errors import BadRequest, RequestInvalid

    messages = validate_structure(obj)
    if not messages:
        return
    if all(is_strict_message(m) for m in messages):
        raise BadRequest("strict decoding error: " + ", ".join(messages))
    shown = json.dumps(obj, separators=(",", ":"), sort_keys=True)
    raise PatchFailure(RequestInvalid([f"patch: Invalid value: {go_quote(shown)}: {messages[0]}"]))
