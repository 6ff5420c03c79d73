"""kubesim's help texts, in kubectl's shape: ``kubesim --help`` lists the commands in kubectl's
groups (plus one for kubesim's own), ``kubesim VERB --help`` prints kubectl's description,
Examples, Options (the flags kubesim accepts, in kubectl's words where kubectl has the flag)
and Usage; an unknown command gets cobra's "Did you mean this?".

Upstream: kubectl v1.36's pkg/cmd/cmd.go (the command groups and the order commands are added),
pkg/util/templates/templates.go and templater.go (the help layout), and cobra v1.10's
command.go (``SuggestionsFor``: Levenshtein distance <= 2, ignoring case, or a prefix, in the
order the commands were added; ``unknown command "x" for "kubectl"``). kubectl's own texts come
from ``kubesim/data/kubectl-help.json.xz`` (``tools/gen_help.py``), with kubectl named kubesim.

Only ``--help``, ``options`` and an unknown command import this module.
"""

from __future__ import annotations

import functools
import json
import lzma
import os
import re

# kubectl's command groups, in pkg/cmd/cmd.go's order; verbs kubesim lacks are skipped
GROUPS: list[tuple[str, list[str]]] = [
    ("Basic Commands (Beginner):", ["create", "expose", "run", "set"]),
    ("Basic Commands (Intermediate):", ["explain", "get", "edit", "delete"]),
    ("Deploy Commands:", ["rollout", "scale", "autoscale"]),
    ("Cluster Management Commands:", ["certificate", "cluster-info", "top", "cordon", "uncordon", "drain", "taint"]),
    ("Troubleshooting and Debugging Commands:", ["describe", "logs", "attach", "exec", "port-forward", "proxy", "cp",
                                                 "auth", "debug", "events"]),
    ("Advanced Commands:", ["diff", "apply", "patch", "replace", "wait", "kustomize"]),
    ("Settings Commands:", ["label", "annotate", "completion"]),
]
KUBESIM_GROUP = ("kubesim Commands:", ["explain-schedule", "explain-network", "advance", "cluster", "node", "serve", "drill", "exam"])
# added after the groups, in this order (cmd.go); shown under "Other Commands:", sorted
OTHER = ["alpha", "config", "plugin", "version", "api-versions", "api-resources", "options", "kuberc"]

# Examples of kubesim's own verbs (and of kubectl's where kubesim's would differ)
EXAMPLES = {
    "explain-schedule": """  # Why did the pod land where it did: every plugin's verdict and score on every node
  kubesim explain-schedule web-1
  
  # Where would these pods land, without creating them
  kubesim explain-schedule -f pods.yaml
  
  # The explanation as data
  kubesim explain-schedule web-1 -o json""",
    "explain-network": """  # Why can (or can't) this pod reach the Service: DNS, endpoints, each NetworkPolicy, the port
  kubesim explain-network client web:80
  
  # The same for a command, instead of running it
  kubesim exec client --explain -- wget -qO- -T 2 web""",
    "advance": """  # Move the simulated clock forward five minutes, settling the cluster on the way
  kubesim advance 5m""",
    "cluster": """  # A fresh default cluster (a control plane and two workers)
  kubesim cluster reset
  
  # Five workers of 8 CPUs and 32Gi each, spread over three zones
  kubesim cluster init --nodes 5 --cpu 8 --memory 32Gi --zones 3
  
  # Where the state is, the simulated time, and how many nodes and pods
  kubesim cluster info""",
    "node": """  # Stop node01's kubelet (a node failure), then start it again
  kubesim node stop node01
  kubesim node start node01""",
    "drill": """  # The practice tasks, by CKA domain
  kubesim drill list --topic troubleshooting
  
  # Prepare a task's cluster (context drill) and read the task
  kubesim drill start manual-scheduling
  
  # Grade it: each check passed or failed, and why
  kubesim drill check
  
  # A hint, a model answer, or the same task afresh
  kubesim drill hint
  kubesim drill solution
  kubesim drill reset""",
    "exam": """  # A mock CKA exam: 17 tasks in the curriculum's weights, each on its own context
  kubesim exam start --seed 42
  
  # The score so far, then the final grade
  kubesim exam check
  kubesim exam end""",
    "serve": """  # Serve ./state on https://127.0.0.1:6443; its kubeconfig is state/serve/kubeconfig
  kubesim serve
  
  # Plain HTTP on a free port, the kubeconfig written where kubectl's default one is
  kubesim serve --insecure-http --port 0 --write-kubeconfig ~/.kube/config""",
}

OPTIONS_FOOTER = 'Use "kubesim options" for a list of global command-line options (applies to all commands).'

_DATA = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "data", "kubectl-help.json.xz")


@functools.cache
def _kubectl() -> dict:
    with open(_DATA, "rb") as f:
        return json.loads(lzma.decompress(f.read()))


def as_kubesim(text: str) -> str:
    """kubectl's text naming kubesim (not kubectl.kubernetes.io/... nor kubectl-plugins)."""
    return re.sub(r"\bkubectl\b(?![.\-/])", "kubesim", text)


def command_order(verbs) -> list[str]:
    """kubesim's commands in the order kubectl adds its own (cobra's suggestion order), kubesim's
    own after them, then whatever else in the verb table's order."""
    known = [v for _, vs in GROUPS for v in vs] + OTHER + KUBESIM_GROUP[1]
    return [v for v in known if v in verbs] + [v for v in verbs if v not in known and not v.startswith("_")]


def levenshtein(a: str, b: str) -> int:
    a, b = a.lower(), b.lower()
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def suggestions(typed: str, verbs) -> list[str]:
    """cobra's SuggestionsFor: distance <= 2 or a prefix (ignoring case)."""
    return [v for v in command_order(verbs)
            if levenshtein(typed, v) <= 2 or v.lower().startswith(typed.lower())]


def unknown_command(typed: str, verbs) -> str:
    text = f'unknown command "{typed}" for "kubesim"'
    found = suggestions(typed, verbs)
    if found:
        text += "\n\nDid you mean this?\n" + "".join(f"\t{v}\n" for v in found)
    return text


def top_help(summaries: dict) -> str:
    """``kubesim --help``: kubectl's groups, kubesim's own, the rest as Other Commands; each
    command with kubectl's one-line summary where kubectl has the command."""
    short = _kubectl()["short"]
    verbs = {v: short.get(v, text) for v, text in summaries.items() if not v.startswith("_")}  # _: hidden
    shown = list(verbs)
    pad = max([11, *map(len, shown)])
    grouped = {v for _, vs in GROUPS for v in vs} | set(KUBESIM_GROUP[1])
    blocks = []
    for title, members in [*GROUPS, KUBESIM_GROUP]:
        present = [v for v in members if v in verbs]
        if present:
            blocks.append(title + "\n" + "".join(f"  {v.ljust(pad)} {verbs[v]}\n" for v in present))
    other = sorted(v for v in shown if v not in grouped)
    if other:
        blocks.append("Other Commands:\n" + "".join(f"  {v.ljust(pad)} {verbs[v]}\n" for v in other))
    head = ("kubesim controls a simulated Kubernetes cluster, as kubectl controls a real one.\n\n"
            " The cluster (a kubeadm-like v1.35 cluster on a simulated clock) lives in a state directory: --state\n"
            " DIR, else $KUBESIM_STATE, else ./state.\n\n")
    return head + "\n".join(blocks) + ("\nUsage:\n  kubesim [flags] [options]\n\n"
                                       'Use "kubesim <command> --help" for more information about a given command.\n'
                                       f"{OPTIONS_FOOTER}\n")


def unknown_topic(topic: str, summaries: dict) -> str:
    """cobra's help command for a topic it does not know: the message, then the root's usage
    (its help without the description), on stderr; exit 0."""
    text = top_help(summaries)
    return f"Unknown help topic [`{topic}`]\n\n\n" + text[text.index("Basic Commands"):]


def _flag_line(action) -> tuple[str, str]:
    longs = [s for s in action.option_strings if s.startswith("--")]
    shorts = [s for s in action.option_strings if not s.startswith("--")]
    name = (longs or shorts)[0].lstrip("-")
    default = action.default
    if action.nargs == 0:  # store_true
        value = "false"
    elif isinstance(default, (int, float)) and not isinstance(default, bool):
        value = str(default)
    elif isinstance(default, list) or action.__class__.__name__ == "_AppendAction":
        value = "[]"
    elif default in ("true", "false"):
        value = default
    elif action.nargs == "?" and action.const in ("true", "false"):
        value = "false"
    else:
        value = f"'{default or ''}'"
    short = f"{shorts[0]}, " if shorts and longs else ""
    return name, f"    {short}--{name}={value}:" if longs else f"    -{name}={value}:"


def options_section(parser, kubectl_options: dict, only_kubectls: bool = False) -> str:
    """The verb's own flags (not the global ones), sorted by name as pflag sorts them: kubectl's
    line and help for a flag kubectl has, kubesim's otherwise (or, ``only_kubectls``, not at all)."""
    import argparse

    shared = {id(a) for g in parser._action_groups if g.title == "global options" for a in g._group_actions}
    entries = []
    for action in parser._actions:
        if not action.option_strings or id(action) in shared or action.dest == "help" \
                or action.help == argparse.SUPPRESS:
            continue
        name, line = _flag_line(action)
        if name in kubectl_options:
            line, text = kubectl_options[name]
        elif only_kubectls:
            continue
        else:
            text = action.help or ""
        entries.append((name, f"{line}\n\t{as_kubesim(text)}\n"))
    return "\n".join(text for _, text in sorted(entries))


def topic(name: str, words: list[str]) -> str:
    """The command a help request is about: ``VERB``, or ``VERB SUBCOMMAND`` when the first word
    after the verb names one of kubectl's subcommands of it (or one of their aliases)."""
    if not words:
        return name
    verbs = _kubectl()["verbs"]
    for key, doc in verbs.items():
        if key.startswith(name + " ") and words[0] in [key.split(" ", 1)[1], *doc.get("aliases", "").split(", ")]:
            return key
    return name


def verb_help(name: str, parser, summary: str, words: list[str] = ()) -> str:
    """``kubesim VERB [SUBCOMMAND] --help``."""
    key = topic(name, list(words))
    doc = {} if name == "options" else _kubectl()["verbs"].get(key, {})
    parts = [as_kubesim(doc["long"]) if doc.get("long") else summary]
    if doc.get("aliases"):
        parts.append("Aliases:\n" + doc["aliases"])
    examples = EXAMPLES.get(name) or (as_kubesim(doc["examples"]) if doc.get("examples") else "")
    if examples:
        parts.append("Examples:\n" + examples)
    if doc.get("commands"):
        parts.append("Available Commands:\n" + doc["commands"])
    # kubesim parses a verb and its subcommands with one parser: where kubectl has subcommands,
    # list only the flags kubectl's command has
    options = options_section(parser, doc.get("options", {}), only_kubectls=key != name or bool(doc.get("commands")))
    if options:
        parts.append("Options:\n" + options.rstrip("\n"))
    usage = as_kubesim(doc["usage"]) if doc.get("usage") else f"  kubesim {name} [options]"
    parts.append("Usage:\n" + usage)
    footer = as_kubesim(doc["footer"]) if doc.get("footer") else OPTIONS_FOOTER
    return "\n\n".join(parts) + "\n\n" + footer + "\n"


def options_help(parser) -> str:
    """``kubesim options``: the global flags, in kubectl's words where kubectl has the flag."""
    import argparse

    kubectl_options = _kubectl()["options"]
    entries = []
    for action in parser._actions:
        if not action.option_strings or action.dest == "help" or action.help == argparse.SUPPRESS:
            continue
        name, line = _flag_line(action)
        text = action.help or ""
        if name in kubectl_options and name != "request-timeout":
            line, text = kubectl_options[name]
        entries.append((name, f"{line}\n\t{as_kubesim(text)}\n"))
    return ("The following options can be passed to any command:\n\n" +
            "\n".join(text for _, text in sorted(entries)))


def add_flags(p):
    """``kubesim options`` takes no flags of its own."""


def run_options(f, args, env) -> int:
    from kubesim.cli.main import top_parser

    env.stdout.write(options_help(top_parser()))
    return 0
