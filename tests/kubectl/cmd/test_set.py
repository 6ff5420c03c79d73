"""kubectl set env|resources|serviceaccount|selector, as staging/src/k8s.io/kubectl/pkg/cmd/set/
set_env_test.go, set_resources_test.go, set_serviceaccount_test.go and set_selector_test.go check
them: the change made to the pod template, the line printed, --dry-run, -o, and the errors."""

from __future__ import annotations

import json

import pytest

from kubesim.testing.cli import snapshot

CONFIG = """apiVersion: v1
kind: ConfigMap
metadata:
  name: cfg
data:
  log.level: debug
  MODE: fast
"""


@pytest.fixture
def web(kubesim):
    kubesim.ok("create deployment web --image=nginx")
    kubesim.apply(CONFIG)
    return kubesim


def container(h, name: str = "web") -> dict:
    return json.loads(h.ok(f"get deployment {name} -o json"))["spec"]["template"]["spec"]["containers"][0]


def pod_spec(h, name: str = "web") -> dict:
    return json.loads(h.ok(f"get deployment {name} -o json"))["spec"]["template"]["spec"]


# -- set env -----------------------------------------------------------------------------------

@pytest.mark.parametrize("args, out, err, env", [
    pytest.param("deploy/web FOO=bar", "deployment.apps/web env updated\n", "", [{"name": "FOO", "value": "bar"}],
                 id="a variable is set"),
    pytest.param("deployment web -e FOO=bar -e BAZ=1", "deployment.apps/web env updated\n", "",
                 [{"name": "FOO", "value": "bar"}, {"name": "BAZ", "value": "1"}], id="-e, repeated"),
    pytest.param("deploy/web FOO=bar --prefix=APP_", "deployment.apps/web env updated\n", "",
                 [{"name": "APP_FOO", "value": "bar"}], id="--prefix"),
    pytest.param("deploy/web --from=configmap/cfg", "deployment.apps/web env updated\n",
                 "Warning: key log.level transferred to LOG_LEVEL\n",
                 [{"name": "MODE", "valueFrom": {"configMapKeyRef": {"key": "MODE", "name": "cfg"}}},
                  {"name": "LOG_LEVEL", "valueFrom": {"configMapKeyRef": {"key": "log.level", "name": "cfg"}}}],
                 id="--from a ConfigMap: a reference per key, the name made an environment variable's"),
    pytest.param("deploy/web --from=configmap/cfg --keys=MODE", "deployment.apps/web env updated\n", "",
                 [{"name": "MODE", "valueFrom": {"configMapKeyRef": {"key": "MODE", "name": "cfg"}}}],
                 id="--keys picks keys"),
    pytest.param("deploy/web -c nope FOO=bar", "", 'Warning: Deployment/web does not have any containers matching '
                                                   '"nope"\n', None, id="no container matches -c: a warning"),
    pytest.param("deploy/web -c 'ng*' FOO=bar", "deployment.apps/web env updated\n", "",
                 [{"name": "FOO", "value": "bar"}], id="-c takes wildcards"),
    pytest.param("deploy/web FOO=bar --dry-run=client", "deployment.apps/web env updated (dry run)\n", "", None,
                 id="--dry-run=client changes nothing"),
    pytest.param("deploy/web FOO=bar --dry-run=server", "deployment.apps/web env updated (server dry run)\n", "",
                 None, id="--dry-run=server changes nothing"),
    pytest.param("deploy/web FOO=bar -o name", "deployment.apps/web\n", "", [{"name": "FOO", "value": "bar"}],
                 id="-o name"),
])
def test_set_env(web, args, out, err, env):
    r = web(f"set env {args}")
    assert (r.code, r.out, r.err) == (0, out, err)
    assert container(web).get("env") == env


def test_set_env_replaces_removes_and_lists(web):
    web.ok("set env deploy/web A=1 B=2")
    assert web.ok("set env deploy/web A=1") == ""  # nothing changes: nothing sent, nothing printed
    assert web.ok("set env deploy/web A=3 B-") == "deployment.apps/web env updated\n"
    web.ok("set env deploy/web --from=configmap/cfg --keys=MODE")
    assert web.ok("set env deploy/web --list") == "# Deployment web, container nginx\nA=3\n# MODE from configmap cfg, " \
                                                  "key MODE\n"
    r = web("set env deploy/web A=4 --overwrite=false")
    assert (r.code, r.err) == (1, "error: deployments/web 'A' already has a value (3), and --overwrite is false\n")
    assert web.ok("set env deploy/web A-") == "deployment.apps/web env updated\n"


def test_set_env_yaml_output_is_the_updated_object(web):
    out = web.ok("set env deploy/web FOO=bar -o yaml")
    assert "      - env:\n        - name: FOO\n          value: bar\n" in out
    assert out.startswith("apiVersion: apps/v1\nkind: Deployment\n")


# -- set resources -----------------------------------------------------------------------------

@pytest.mark.parametrize("args, out, resources", [
    pytest.param("deploy/web --limits=cpu=200m,memory=512Mi --requests=cpu=0.1",
                 "deployment.apps/web resource requirements updated\n",
                 {"limits": {"cpu": "200m", "memory": "512Mi"}, "requests": {"cpu": "100m"}},
                 id="limits and requests, quantities in canonical form"),
    pytest.param("deploy/web -c nginx --requests=memory=1Gi", "deployment.apps/web resource requirements updated\n",
                 {"requests": {"memory": "1Gi"}}, id="-c names the container"),
    pytest.param("deploy/web --limits=cpu=1 --dry-run=client", "deployment.apps/web resource requirements updated "
                                                               "(dry run)\n", {}, id="--dry-run=client"),
])
def test_set_resources(web, args, out, resources):
    assert web.ok(f"set resources {args}") == out
    assert container(web).get("resources") == resources


# -- set serviceaccount ------------------------------------------------------------------------

def test_set_serviceaccount(web):
    assert web.ok("set serviceaccount deploy/web robot") == "deployment.apps/web serviceaccount updated\n"
    assert pod_spec(web)["serviceAccountName"] == "robot"
    # printed even when nothing changes (set_serviceaccount.go sends every patch)
    assert web.ok("set sa deployment web robot") == "deployment.apps/web serviceaccount updated\n"


# -- errors ------------------------------------------------------------------------------------

QUANTITY = "quantities must match the regular expression '^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'"


@pytest.mark.parametrize("args, err", [
    ("env deploy/web 1BAD=x", 'error: "1BAD" is not a valid key name: a valid environment variable name must consist '
                              "of alphabetic characters, digits, '_', '-', or '.', and must not start with a digit "
                              "(e.g. 'my.env-name',  or 'MY_ENV.NAME',  or 'MyEnvName1', regex used for validation "
                              "is '[-._a-zA-Z][-._a-zA-Z0-9]*')\n"),
    ("env deploy/web A=1 A-", "error: can not both modify and remove the same environment variable in the same "
                              "command\n"),
    ("env A=1 deploy/web", "error: all resources must be specified before environment changes: A=1 deploy/web\n"),
    ("env A=1", "error: one or more resources must be specified as <resource> <name> or <resource>/<name>\n"),
    ("env deploy/web --list -o yaml", "error: --list and --output may not be specified together\n"),
    ("env deploy/web --keys=a", "error: when specifying --keys, a configmap or secret must be provided with --from\n"),
    ("env deployments --all -l app=web A=1", "error: cannot set --all and --selector at the same time\n"),
    ("env deploy/web --from=deploy/web", "error: unsupported resource specified in --from\n"),
    ("env deploy/nope A=1", 'Error from server (NotFound): deployments.apps "nope" not found\n'),
    ("resources deploy/web", "error: you must specify an update to requests or limits (in the form of "
                             "--requests/--limits)\n"),
    ("resources deploy/web --limits=cpu", "error: invalid argument syntax cpu, expected <resource>=<value>\n"),
    ("resources deploy/web --limits=cpu=lots", f"error: {QUANTITY}\n"),
    ("resources deploy/web -c nope --limits=cpu=1", "error: unable to find container named nope\n"),
    ("serviceaccount", "error: serviceaccount is required\n"),
    ("selector deploy/web app=x", "error: setting a selector is only supported for Services\n"),
    ("image deploy/web nginx=nginx:1 --env=A=1", "error: unknown flag: --env\nSee 'kubesim set image --help' for "
                                                 "usage.\n"),
])
def test_bad_input_fails_as_kubectl_does_and_changes_nothing(web, args, err):
    before = snapshot(web.state_dir)
    r = web(f"set {args}")
    assert (r.code, r.out, r.err) == (1, "", err)
    assert snapshot(web.state_dir) == before


# -- --local (set_env_test.go TestSetEnvLocal, set_resources_test.go TestResourcesLocal) -------------

WEB = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
spec:
  selector:
    matchLabels: {app: api}
  template:
    metadata:
      labels: {app: api}
    spec:
      containers:
      - name: app
        image: nginx
"""


@pytest.mark.parametrize("args, out", [
    pytest.param("env --local -f {f} env=prod -o name", "deployment.apps/api\n", id="set env --local"),
    pytest.param("resources --local -f {f} --limits=cpu=200m,memory=512Mi -o name", "deployment.apps/api\n",
                 id="set resources --local"),
    pytest.param("serviceaccount --local -f {f} robot", "deployment.apps/api serviceaccount updated\n",
                 id="set serviceaccount --local"),
])
def test_local_changes_the_file_s_objects_and_contacts_nothing(kubesim, tmp_path, args, out):
    f = tmp_path / "api.yaml"
    f.write_text(WEB)
    before = snapshot(kubesim.state_dir)
    assert kubesim.ok("set " + args.format(f=f)) == out
    assert snapshot(kubesim.state_dir) == before


def test_set_env_local_yaml_prints_the_changed_object(kubesim, tmp_path):
    f = tmp_path / "api.yaml"
    f.write_text(WEB)
    out = kubesim.ok(f"set env --local -f {f} env=prod -o yaml")
    assert "      - env:\n        - name: env\n          value: prod\n" in out


def test_set_env_reads_variables_from_stdin(web):
    assert web.ok("set env deploy/web -e -", stdin="A=1\n# a comment\nB=two # trailing\n") == \
        "deployment.apps/web env updated\n"
    assert container(web)["env"] == [{"name": "A", "value": "1"}, {"name": "B", "value": "two "}]


def test_set_env_list_resolve_reads_the_references(web):
    web.ok("set env deploy/web --from=configmap/cfg --keys=MODE")
    web.ok("set resources deploy/web --limits=cpu=200m")
    web.ok("patch deploy web --type=json -p '["
           '{"op":"add","path":"/spec/template/spec/containers/0/env/-","value":{"name":"POD","valueFrom":'
           '{"fieldRef":{"fieldPath":"metadata.name"}}}},'
           '{"op":"add","path":"/spec/template/spec/containers/0/env/-","value":{"name":"CPU","valueFrom":'
           '{"resourceFieldRef":{"resource":"limits.cpu","divisor":"1m"}}}},'
           '{"op":"add","path":"/spec/template/spec/containers/0/env/-","value":{"name":"GONE","valueFrom":'
           '{"configMapKeyRef":{"name":"nope","key":"x"}}}}'
           "]'")
    r = web("set env deploy/web --list --resolve")
    # env_resolve.go: the values; what cannot be read stays a reference, its error on stderr (exit 0:
    # RunEnv returns before the listing's errors are gathered)
    assert (r.code, r.out) == (0, "# Deployment web, container nginx\nMODE=fast\nPOD=web\nCPU=200\n"
                                  "# GONE from configmap nope, key x\n")
    assert r.err == 'error retrieving reference for GONE: configmaps "nope" not found\n'
    assert web.ok("set env deploy/web --list").splitlines()[1:4] == [
        "# MODE from configmap cfg, key MODE", "# POD from field path metadata.name",
        "# CPU from resource field limits.cpu"]
