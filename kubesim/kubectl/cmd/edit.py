"""kubectl edit: the objects in $KUBE_EDITOR / $EDITOR, the edits sent as patches.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/edit/edit.go with cmd/util/editor/{editoptions.go,
editor.go} (the edit loop, its header, ``Edit cancelled, no changes made.``, the ``A copy of your
changes has been stored to ...`` message).

Where kubesim differs from kubectl:

- ``edit`` sends the change as a JSON merge patch computed from the object shown and the file
  saved (kubectl sends a two-way strategic merge patch). Both give the same object unless the
  object changed in between; kubesim re-reads it at save time, as the API server does.
- ``edit`` re-opens the editor, with the errors in the header, after an invalid edit, as kubectl
  does; an editor that saves the same invalid file again ends it with kubectl's
  ``Edit cancelled, no valid changes were saved.`` (a scripted $EDITOR therefore runs twice).
"""

from __future__ import annotations

import copy
import json

from kubesim.errors import KubesimError, RawError, StatusError, UsageError
from kubesim.kubectl import polymorphichelpers as ph
from kubesim.kubectl.cmd.util import (
    bool_flag,
    change_cause,
    record_warning,
    result_line,
)
from kubesim.kubectl.resource import NO_RESOURCES, resolve

HEADER = ("# Please edit the object below. Lines beginning with a '#' will be ignored,\n"
          "# and an empty file will abort the edit. If an error occurs while saving this file will be\n"
          "# reopened with the relevant failures.\n"
          "#\n")
MAX_ATTEMPTS = 20  # kubectl loops for as long as the user keeps saving new invalid edits


def add_flags(p):
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
    bool_flag(p, "--record")


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
        proc = subprocess.run(cmd, env={k: str(v) for k, v in env.vars.items()}, cwd=env.cwd, check=False, **streams)
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
    from kubesim.codec.load import yaml_to_json

    try:
        docs = yaml_to_json("edit", text)
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


def run(f, args, env) -> int:
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
    with f.connect() as client:
        targets = resolve(client, f, args, args.args, True, args.filename, stdin=env.stdin)
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
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(buffer)
        previous = edited
        try:
            _launch(env, path)
        except KubesimError:
            if not contains_error:  # nothing of the user's in it yet: leave no temp file behind
                os.remove(path)
            raise
        try:
            with open(path, encoding="utf-8", errors="replace") as fh:
                edited = fh.read()
        except FileNotFoundError:  # the editor removed it: LaunchTempFile's os.ReadFile error
            raise UsageError(f"open {path}: no such file or directory") from None
        except OSError as e:
            raise UsageError(f"read {path}: {e.strerror.lower() if e.strerror else e}") from None
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
        outcome = _apply_edits(f, args, env, originals, updated, cause, path)
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


def _apply_edits(f, args, env, originals, updated: list[dict], cause, path):
    """visitToPatch for every edited object; an exit code, or the reasons to re-open the editor."""
    import os

    from kubesim.api.gofmt import go_sprint
    from kubesim.api.merge import LAST_APPLIED, last_applied_json
    from kubesim.api.patch import PatchFailure, create_merge_patch
    from kubesim.errors import Invalid, RequestInvalid

    ns = f.namespace()
    for obj in updated:
        md = obj.get("metadata") or {}
        info = next((i for i, o in originals if o["kind"] == obj.get("kind")), None)
        if info is not None and info.namespaced and md.get("namespace") and md["namespace"] != ns:
            return _preserved(env, path, f'error: the namespace from the provided object "{md["namespace"]}" does not '
                                         f'match the namespace "{ns}". You must pass \'--namespace={md["namespace"]}\' '
                                         "to perform this operation.")
        if args.save_config:
            md.setdefault("annotations", {})[LAST_APPLIED] = last_applied_json(obj)
        ph.record(obj, cause)
    reasons, retryable, notfound, invalid = [], 0, 0, 0
    lines = []
    for obj in updated:
        uid = (obj.get("metadata") or {}).get("uid")
        match = next(((i, o) for i, o in originals if o["metadata"].get("uid") == uid), None)
        if match is None:
            return _preserved(env, path, f"error: no original object found for {go_sprint(obj)}")
        info, original = match
        if obj == original:
            lines.append(result_line(info, original, "skipped", None))
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
            with f.connect() as client:
                new, _ = client.patch(info, original["metadata"].get("namespace", ""), name, "merge", patch,
                                      field_validation="Strict")
                client.update(info, new)
            lines.append(result_line(info, original, "edited", None))
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
