"""Help in kubectl's shape: ``kubesim --help`` in kubectl's command groups (plus kubesim's own),
``kubesim VERB --help`` with kubectl's description, Examples and Usage and the flags kubesim
accepts, and cobra's "Did you mean this?" for an unknown command. The real kubectl of the test
extras is the reference wherever it is installed."""

from __future__ import annotations

import os
import pathlib
import re
import subprocess
import sys

import pytest

from kubesim.cli.help import EXAMPLES, GROUPS, KUBESIM_GROUP, as_kubesim
from kubesim.cli.verbs import VERBS
from kubesim.testing.cli import Harness

KUBECTL = pathlib.Path(sys.executable).parent / "kubectl"


def _kubectl(*args: str):
    if not KUBECTL.exists():
        pytest.skip("the real kubectl of the test extras is not installed")
    return subprocess.run([str(KUBECTL), *args], capture_output=True, text=True,
                          env={**os.environ, "KUBECONFIG": os.devnull})


def _section(text: str, title: str) -> str:
    m = re.search(rf"^{title}:\n(.*?)(?=\n\n\S[^\n]*:\n|\n\nUse |\Z)", text, re.S | re.M)
    return m.group(1) if m else ""


def _long(text: str) -> str:
    return re.split(r"\n\n(?:Examples|Available Commands|Options|Usage):\n", text)[0]


def test_top_help_lists_every_command_once_in_kubectls_groups(tmp_path):
    out = Harness(tmp_path).ok("--help")
    titles = re.findall(r"^(\S.*):$", out, re.M)
    expected = [t[:-1] for t, vs in [*GROUPS, KUBESIM_GROUP] if any(v in VERBS for v in vs)] + ["Other Commands", "Usage"]
    assert titles == expected
    listed = re.findall(r"^  ([a-z-]+) ", out.split("\nUsage:\n")[0], re.M)
    assert sorted(listed) == sorted(v for v in VERBS if not v.startswith("_"))
    assert out.endswith('Use "kubesim <command> --help" for more information about a given command.\n'
                        'Use "kubesim options" for a list of global command-line options (applies to all commands).\n')
    assert Harness(tmp_path).ok("") == out == Harness(tmp_path).ok("help")


def test_top_help_groups_and_summaries_are_kubectls(tmp_path):
    real = _kubectl("--help").stdout
    mine = Harness(tmp_path).ok("--help")
    for title, verbs in GROUPS:
        theirs = [line for line in _section(real, re.escape(title[:-1])).splitlines()
                  if line.strip() and line.split()[0] in VERBS]
        ours = _section(mine, re.escape(title[:-1])).splitlines()
        assert [line.split(None, 1) for line in ours] == [line.split(None, 1) for line in theirs], title


@pytest.mark.parametrize("verb", sorted(VERBS))
def test_every_verb_has_kubectl_shaped_help(tmp_path, verb):
    out = Harness(tmp_path).ok(f"{verb} --help")
    assert out == Harness(tmp_path).ok(f"{verb} -h") == Harness(tmp_path).ok(f"help {verb}")
    assert "\nUsage:\n  kubesim " in out
    assert out.endswith('Use "kubesim options" for a list of global command-line options (applies to all commands).\n')
    assert "kubectl " not in out.replace("kubectl cluster-info dump", "")
    if verb in EXAMPLES:
        assert "Examples:\n" + EXAMPLES[verb] + "\n\n" in out
    assert not (tmp_path / "kubesim.db").exists()


@pytest.mark.parametrize("verb", sorted(v for v in VERBS if v not in {v for v in KUBESIM_GROUP[1]} | {"options"}))
def test_a_kubectl_verbs_help_is_kubectls_naming_kubesim(tmp_path, verb):
    real = _kubectl(verb, "--help").stdout
    mine = Harness(tmp_path).ok(f"{verb} --help")
    assert _long(mine) == as_kubesim(_long(real))
    if verb not in EXAMPLES:
        assert _section(mine, "Examples") == as_kubesim(_section(real, "Examples"))
    assert _section(mine, "Usage") == as_kubesim(_section(real, "Usage"))
    # every flag kubesim lists that kubectl has reads as kubectl's
    theirs = _section(real, "Options").split("\n\n")
    for block in filter(None, _section(mine, "Options").split("\n\n")):
        name = re.match(r"    (?:-\w, )?--([a-z0-9-]+)=", block).group(1)
        twin = [b for b in theirs if re.match(rf"    (?:-\w, )?--{name}=", b)]
        if twin:
            assert block == as_kubesim(twin[0])


@pytest.mark.parametrize("typed", ["gett", "dscribe", "ap", "xyz", "lables", "rollot", "delet", "Get", "cordn",
                                   "apply2", "e", "ver", "taints", "evnets"])
def test_unknown_command_suggests_as_cobra_does(tmp_path, typed):
    real = _kubectl(typed)
    r = Harness(tmp_path)(typed)
    assert r.code == real.returncode == 1
    assert _said(r.err) == (_said(real.stderr)[0].replace('"kubectl"', '"kubesim"'),
                            [v for v in _said(real.stderr)[1] if v in VERBS])
    if "Did you mean" in r.err:
        assert "\n\nDid you mean this?\n\t" in r.err and r.err.endswith("\n") and not r.err.endswith("\n\n")


def _said(stderr: str) -> tuple[str, list[str]]:
    """The error line, and the suggestions that are kubectl's verbs."""
    head, _, rest = stderr.partition("\n")
    return head, [v.strip() for v in rest.splitlines() if v.startswith("\t") and v.strip() not in KUBESIM_GROUP[1]]


def test_kubesims_own_commands_are_suggested_too(tmp_path):
    r = Harness(tmp_path)("advanse 5m")
    assert r.err == 'error: unknown command "advanse" for "kubesim"\n\nDid you mean this?\n\tadvance\n'


def test_options_lists_the_global_flags(tmp_path):
    out = Harness(tmp_path).ok("options")
    assert out.startswith("The following options can be passed to any command:\n\n    --as='':\n")
    # sorted by long name, as kubectl's options lists them
    assert re.findall(r"^    (.*):$", out, re.M) == ["--as=''", "--as-group=[]", "--as-uid=''", "--cluster=''", "--context=''", "--kubeconfig=''",
                                                      "-n, --namespace=''", "--request-timeout=''", "--state=''",
                                                      "-v, --v=0"]


def test_an_ordinary_command_loads_no_help_text():
    code = ("import sys, io; from kubesim.cli.main import main, Environment; "
            "main(['version', '--client'], Environment(stdout=io.StringIO())); "
            "print('kubesim.cli.help' in sys.modules)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.stdout == "False\n", r.stderr


@pytest.mark.parametrize("args, kubectl_args", [
    pytest.param("create deploy --help", ["create", "deployment", "--help"], id="a subcommand by its alias"),
    pytest.param("create deployment web --help", ["create", "deployment", "--help"], id="a subcommand"),
    pytest.param("rollout status -h", ["rollout", "status", "--help"], id="rollout status"),
    pytest.param("set image --help", ["set", "image", "--help"], id="set image"),
    pytest.param("create -f x.yaml --help", ["create", "--help"], id="no subcommand named"),
])
def test_a_subcommands_help_is_kubectls(tmp_path, args, kubectl_args):
    real = _kubectl(*kubectl_args).stdout
    mine = Harness(tmp_path).ok(args)
    assert _long(mine) == as_kubesim(_long(real))
    for title in ("Aliases", "Examples", "Usage"):
        assert _section(mine, title) == as_kubesim(_section(real, title))
    theirs = {b.split("\n")[0] for b in _section(real, "Options").split("\n\n")}
    assert {b.split("\n")[0] for b in filter(None, _section(mine, "Options").split("\n\n"))} <= theirs


@pytest.mark.parametrize("args", ["get pods -x", "explain pods -Z=3", "api-versions -x", "version --foo",
                                  "cluster-info --foo", "explain pods --recursive=maybe"])
def test_an_unknown_flag_reads_as_pflags(tmp_path, args):
    real = _kubectl(*args.split())
    r = Harness(tmp_path)(args)
    assert (r.err.replace("kubesim", "kubectl"), r.code) == (real.stderr, real.returncode)


def test_help_for_an_unknown_topic_is_cobras(tmp_path):
    real = _kubectl("help", "foo")
    r = Harness(tmp_path)("help foo")
    assert (r.out, r.code) == ("", real.returncode)
    assert r.err.split("Basic Commands")[0] == real.stderr.split("Basic Commands")[0]
    usage = real.stderr[real.stderr.index("\nUsage:\n"):]
    assert r.err.endswith(usage.replace("kubectl", "kubesim"))
