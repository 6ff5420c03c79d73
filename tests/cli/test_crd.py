"""CustomResourceDefinitions end to end: a CRD applied, its kind served to every verb, its
objects printed with its printer columns, refused by its schema, and deleted with it. Every
expected text is what a v1.35 API server and kubectl 1.36 printed for the same commands (the
conformance oracle; ``conformance/scenarios/crd.yaml`` replays them)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kubesim.testing.cli import PINNED_NOW, snapshot

GOLDEN = Path(__file__).parent.parent / "kubectl" / "golden"

WIDGET_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.example.com
spec:
  group: example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    shortNames: [wd]
    categories: [all]
  versions:
  - name: v1
    served: true
    storage: true
    additionalPrinterColumns:
    - name: Size
      type: integer
      jsonPath: .spec.size
    - name: Color
      type: string
      jsonPath: .spec.color
      priority: 1
    - name: Age
      type: date
      jsonPath: .metadata.creationTimestamp
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            required: [size]
            properties:
              size:
                type: integer
                minimum: 1
                maximum: 10
                default: 3
              color:
                type: string
                enum: [red, blue]
              name:
                type: string
                pattern: '^[a-z]+$'
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
    subresources:
      status: {}
"""


def widget(name: str, spec: str) -> str:
    return f"apiVersion: example.com/v1\nkind: Widget\nmetadata:\n  name: {name}\nspec:\n{spec}"


@pytest.fixture
def cluster(kubesim):
    assert kubesim.apply(WIDGET_CRD) == "customresourcedefinition.apiextensions.k8s.io/widgets.example.com created\n"
    return kubesim


def test_get_crd_and_its_status(cluster):
    assert cluster.ok("get crd") == f"NAME                  CREATED AT\nwidgets.example.com   {PINNED_NOW}\n"
    status = cluster.ok("get crd widgets.example.com -o jsonpath={.status}")
    assert status == (
        '{"acceptedNames":{"categories":["all"],"kind":"Widget","listKind":"WidgetList","plural":"widgets",'
        '"shortNames":["wd"],"singular":"widget"},"conditions":[{"lastTransitionTime":"' + PINNED_NOW + '",'
        '"message":"no conflicts found","reason":"NoConflicts","status":"True","type":"NamesAccepted"},'
        '{"lastTransitionTime":"' + PINNED_NOW + '","message":"the initial names have been accepted",'
        '"reason":"InitialNamesAccepted","status":"True","type":"Established"}],"storedVersions":["v1"]}')
    assert cluster.ok("get crd widgets.example.com -o jsonpath={.spec.conversion}{.spec.names.listKind}") == \
        '{"strategy":"None"}WidgetList'


def test_the_kind_is_in_api_resources(cluster):
    lines = [ln for ln in cluster.ok("api-resources -o wide").splitlines() if "widget" in ln or "crd" in ln]
    assert [ln.split() for ln in lines] == [
        ["customresourcedefinitions", "crd,crds", "apiextensions.k8s.io/v1", "false", "CustomResourceDefinition",
         "create,delete,deletecollection,get,list,patch,update,watch", "api-extensions"],
        ["widgets", "wd", "example.com/v1", "true", "Widget",
         "delete,deletecollection,get,list,patch,create,update,watch", "all"]]


def test_custom_resources_print_the_crd_columns(cluster):
    cluster.apply(widget("w", "  size: 4\n  color: red\n  name: abc\n"))
    cluster.apply(widget("w4", "  color: red\n"))
    cluster.apply(widget("w5", "  size: 2\n"))
    assert cluster.ok("get wd") == "NAME   SIZE   AGE\nw      4      0s\nw4     3      0s\nw5     2      0s\n"
    assert cluster.ok("get widgets -o wide") == (
        "NAME   SIZE   COLOR   AGE\nw      4      red     0s\nw4     3      red     0s\nw5     2              0s\n")
    assert cluster.ok("get all") .endswith(
        "NAME                    SIZE   AGE\nwidget.example.com/w    4      0s\nwidget.example.com/w4   3      0s\n"
        "widget.example.com/w5   2      0s\n")
    assert cluster.ok("get widget.example.com -o name") == \
        "widget.example.com/w\nwidget.example.com/w4\nwidget.example.com/w5\n"
    assert cluster.ok("get wd w4 -o jsonpath={.spec}") == '{"color":"red","size":3}'
    assert cluster.ok("get wd -o custom-columns=N:.metadata.name,C:.spec.color") == \
        "N     C\nw     red\nw4    red\nw5    <none>\n"


def _normalized(text: str) -> str:
    text = re.sub(r"(UID:\s+)\S+", r"\1UID", text)
    text = re.sub(r"(Resource Version:\s+)\S+", r"\1RV", text)
    return re.sub(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", "TIME", text)


def test_describe_crd_matches_kubectl(cluster):
    assert _normalized(cluster.ok("describe crd widgets.example.com")) == \
        _normalized((GOLDEN / "describe_crd_oracle.txt").read_text())


def test_describe_custom_resource_matches_kubectl(cluster):
    cluster.ok("create namespace crd-b")
    cluster.apply(widget("w", "  size: 4\n  color: red\n  name: abc\n").replace("name: w\n", "name: w\n  namespace: crd-b\n"))
    assert _normalized(cluster.ok("describe wd w -n crd-b")) == \
        _normalized((GOLDEN / "describe_custom_resource_oracle.txt").read_text())


V1035 = ("a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic "
         "character, and end with an alphanumeric character (e.g. 'my-name',  or 'abc-123', regex used for "
         "validation is '[a-z]([-a-z0-9]*[a-z0-9])?')")

BAD = [
    pytest.param(WIDGET_CRD.replace("name: widgets.example.com", "name: gadgets.example.com"),
                 'The CustomResourceDefinition "gadgets.example.com" is invalid: metadata.name: Invalid value: '
                 '"gadgets.example.com": must be spec.names.plural+"."+spec.group\n',
                 id="a CRD whose name is not plural.group"),
    pytest.param(WIDGET_CRD.replace("        type: object\n        properties:\n          spec:\n            type: object\n",
                                    "        type: object\n        properties:\n          spec:\n"),
                 'The CustomResourceDefinition "widgets.example.com" is invalid: spec.validation.openAPIV3Schema.'
                 "properties[spec].type: Required value: must not be empty for specified object fields\n",
                 id="a CRD with a non-structural schema"),
    pytest.param(WIDGET_CRD.replace("    storage: true\n", "    storage: false\n"),
                 "must have exactly one version marked as storage version\n"
                 "* status.storedVersions: Invalid value: null: must have at least one stored version\n",
                 id="a CRD without a storage version"),
    pytest.param(widget("w2", '  size: "string"\n  color: green\n  name: "ABC"\n'),
                 'The Widget "w2" is invalid: \n'
                 '* spec.color: Unsupported value: "green": supported values: "red", "blue"\n'
                 "* spec.name: Invalid value: \"ABC\": spec.name in body should match '^[a-z]+$'\n"
                 '* spec.size: Invalid value: "string": spec.size in body must be of type integer: "string"\n',
                 id="a custom resource violating its schema"),
    pytest.param(widget("w3", "  size: 11\n"),
                 'The Widget "w3" is invalid: spec.size: Invalid value: 11: spec.size in body should be less than '
                 "or equal to 10\n", id="a custom resource above a maximum"),
    pytest.param(widget("w", "  size: 4\n  extra: 1\n"),
                 'Error from server (BadRequest): error when creating "{f}": Widget in version "v1" cannot be '
                 'handled as a Widget: strict decoding error: unknown field "spec.extra"\n',
                 id="a custom resource with a field its schema does not have"),
]


@pytest.mark.parametrize("manifest, message", BAD)
def test_bad_input_is_refused_and_changes_nothing(cluster, tmp_path, manifest, message):
    if manifest.startswith("apiVersion: apiextensions"):
        cluster.ok("delete crd widgets.example.com")
    f = tmp_path / "bad.yaml"
    f.write_text(manifest)
    before = snapshot(cluster.state_dir)
    r = cluster(f"apply -f {f}")
    assert r.code == 1
    assert r.err.endswith(message.replace("{f}", str(f)))
    assert r.out == ""
    assert snapshot(cluster.state_dir) == before


def test_a_strategic_merge_patch_is_refused_and_a_merge_patch_validated(cluster):
    cluster.apply(widget("w", "  size: 2\n"))
    r = cluster(["patch", "wd", "w", "-p", '{"spec":{"size":6}}'])
    assert (r.code, r.err) == (1, "error: application/strategic-merge-patch+json is not supported by example.com/v1, "
                                  "Kind=Widget: the body of the request was in an unknown format - accepted media "
                                  "types include: application/json-patch+json, application/merge-patch+json, "
                                  "application/apply-patch+yaml\n")
    r = cluster(["patch", "wd", "w", "--type", "merge", "-p", '{"spec":{"size":60}}'])
    assert (r.code, r.err) == (1, 'The Widget "w" is invalid: spec.size: Invalid value: 60: spec.size in body should '
                                  "be less than or equal to 10\n")
    r = cluster(["patch", "wd", "w", "--type", "merge", "-p", '{"spec":{"extra":60}}'])
    assert (r.code, r.out, r.err) == (0, "widget.example.com/w patched (no change)\n",
                                      'Warning: unknown field "spec.extra"\n')
    assert cluster.ok(["label", "wd", "w", "team=a"]) == "widget.example.com/w labeled\n"
    assert cluster.ok(["get", "wd", "w", "-o", "jsonpath={.metadata.labels}{.metadata.generation}"]) == '{"team":"a"}1'


def test_deleting_the_crd_deletes_its_objects(cluster):
    cluster.apply(widget("w", "  size: 2\n"))
    assert cluster.ok("delete crd widgets.example.com") == \
        'customresourcedefinition.apiextensions.k8s.io "widgets.example.com" deleted\n'
    assert cluster("get crd").err == "No resources found\n"
    r = cluster("get wd")
    assert (r.code, r.err) == (1, 'error: the server doesn\'t have a resource type "wd"\n')
    import sqlite3

    rows = sqlite3.connect(str(Path(cluster.state_dir) / "kubesim.db")).execute(
        "SELECT COUNT(*) FROM objects WHERE kind='Widget'").fetchone()[0]
    assert rows == 0


def test_a_crd_whose_names_conflict_is_not_established(cluster):
    cluster.apply(WIDGET_CRD.replace("widgets.example.com", "gadgets.example.com")
                  .replace("plural: widgets", "plural: gadgets").replace("    singular: widget\n", "")
                  .replace("shortNames: [wd]", "listKind: GadgetList").replace("    categories: [all]\n", ""))
    status = cluster.ok(["get", "crd", "gadgets.example.com", "-o",
                         "jsonpath={.status.acceptedNames}{.status.conditions[*].message}"])
    assert status == ('{"kind":"","listKind":"GadgetList","plural":"gadgets"}"Widget" is already in use '
                      "not all names are accepted")
    assert cluster("get gadgets").err == 'error: the server doesn\'t have a resource type "gadgets"\n'


CRONTAB_CRD = """apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: crontabs.stable.example.com
spec:
  group: stable.example.com
  scope: Namespaced
  names: {plural: crontabs, kind: CronTab, shortNames: [ct]}
  versions:
  - name: v1beta1
    served: true
    storage: false
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {replicas: {type: integer}, cronSpec: {type: string}}}
          status: {type: object, properties: {replicas: {type: integer}}}
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {replicas: {type: integer}, cronSpec: {type: string}, image: {type: string}}}
          status: {type: object, properties: {replicas: {type: integer}}}
    subresources:
      status: {}
      scale: {specReplicasPath: .spec.replicas, statusReplicasPath: .status.replicas}
"""


def test_versions_with_conversion_none_and_the_scale_and_status_subresources(kubesim):
    kubesim.apply(CRONTAB_CRD)
    kubesim.apply("apiVersion: stable.example.com/v1beta1\nkind: CronTab\nmetadata:\n  name: c1\nspec:\n"
                  "  replicas: 1\n  cronSpec: '* * * * */5'\nstatus:\n  replicas: 4\n")
    # stored at the storage version, served at the preferred one (v1) or the one asked for;
    # the status subresource: a create's status is dropped
    assert kubesim.ok("get ct c1 -o jsonpath={.apiVersion}{.status}") == "stable.example.com/v1"
    assert kubesim.ok("get crontabs.v1beta1.stable.example.com c1 -o jsonpath={.apiVersion}") == \
        "stable.example.com/v1beta1"
    assert kubesim.ok("scale ct c1 --replicas=3") == "crontab.stable.example.com/c1 scaled\n"
    assert kubesim.ok("get ct c1 -o jsonpath={.spec}{.metadata.generation}") == \
        '{"cronSpec":"* * * * */5","replicas":3}2'
    assert [ln.split() for ln in kubesim.ok("api-resources").splitlines() if "crontab" in ln] == \
        [["crontabs", "ct", "stable.example.com/v1", "true", "CronTab"]]


def test_scaling_a_custom_resource_without_the_scale_subresource(cluster):
    cluster.apply(widget("w", "  size: 2\n"))
    r = cluster("scale wd w --replicas=2")
    assert (r.code, r.err) == (1, 'Error from server (NotFound): widgets.example.com "w" not found\n')


@pytest.mark.parametrize("arg, golden", [
    pytest.param("widgets", "explain_custom_resource_oracle.txt", id="the resource"),
    pytest.param("widgets.spec", "explain_custom_resource_spec_oracle.txt", id="a field with fields"),
    pytest.param("wd.spec.color", "explain_custom_resource_enum_oracle.txt", id="an enum field, by short name"),
])
def test_explain_a_custom_resource_matches_kubectl(cluster, arg, golden):
    assert cluster.ok(f"explain {arg}") == (GOLDEN / golden).read_text()


def test_explain_a_missing_field_of_a_custom_resource(cluster):
    r = cluster("explain widgets.spec.nope")
    assert (r.code, r.out, r.err) == (1, "GROUP:      example.com\nKIND:       Widget\nVERSION:    v1\n\n",
                                      'error: field "nope" does not exist\n')


def test_a_crd_waits_for_objects_with_finalizers_then_goes(cluster):
    """crd_finalizer.go: the CRD stays Terminating (InstanceDeletionInProgress) while an object of
    its kind keeps a finalizer; no object may be created meanwhile; when the last finalizer is
    removed the object goes (ShouldDeleteDuringUpdate) and so does the CRD. Texts from a v1.35
    API server."""
    cluster.apply(widget("f1", "  size: 2\n").replace("name: f1\n", "name: f1\n  finalizers: [example.com/hold]\n"))
    cluster.apply(widget("f2", "  size: 2\n"))
    r = cluster("delete crd widgets.example.com --timeout=30s")
    assert (r.code, r.out, r.err) == (
        1, 'customresourcedefinition.apiextensions.k8s.io "widgets.example.com" deleted\n',
        "error: timed out waiting for the condition on customresourcedefinitions/widgets.example.com\n")
    assert cluster.ok(["get", "crd", "widgets.example.com", "-o",
                       "jsonpath={.metadata.finalizers}{.status.conditions[2].reason}"]) == \
        '["customresourcecleanup.apiextensions.k8s.io"]InstanceDeletionInProgress'
    assert cluster.ok("get wd -o name") == "widget.example.com/f1\n"
    assert cluster.ok(["get", "wd", "f1", "-o", "jsonpath={.metadata.generation}{.metadata.deletionGracePeriodSeconds}"]) \
        == "20"
    r = cluster("apply -f -", stdin=widget("f3", "  size: 2\n"))
    assert (r.code, r.err) == (1, 'Error from server (Forbidden): error when creating "STDIN": widgets.example.com "f3" '
                                  "is forbidden: create not allowed while custom resource definition is terminating\n")
    assert cluster.ok(["patch", "wd", "f1", "--type", "merge", "-p", '{"metadata":{"finalizers":null}}']) == \
        "widget.example.com/f1 patched\n"
    assert cluster("get crd").err == "No resources found\n"


def test_patch_through_the_status_subresource_only_where_the_crd_enables_it(cluster):
    cluster.apply(widget("w", "  size: 2\n"))
    status = ["patch", "wd", "w", "--subresource=status", "--type", "merge", "-p", '{"status":{"phase":"Ready"}}']
    assert cluster.ok(status) == "widget.example.com/w patched\n"
    assert cluster.ok(["get", "wd", "w", "-o", "jsonpath={.status}{.metadata.generation}"]) == '{"phase":"Ready"}1'
    assert cluster.ok(status) == "widget.example.com/w patched (no change)\n"
    r = cluster(["patch", "wd", "w", "--subresource=scale", "--type", "merge", "-p", '{"spec":{"replicas":2}}'])
    assert (r.code, r.err) == (1, 'Error from server (NotFound): widgets.example.com "w" not found\n')


def test_deleting_a_namespace_deletes_its_custom_resources(cluster):
    cluster.ok("create namespace team")
    cluster.apply(widget("w", "  size: 2\n").replace("name: w\n", "name: w\n  namespace: team\n"))
    cluster.apply(widget("keep", "  size: 3\n"))
    cluster.ok("delete namespace team")
    assert cluster.ok("get wd -A -o name") == "widget.example.com/keep\n"


def test_edit_a_custom_resource_is_validated_by_its_schema(tmp_path):
    from kubesim.testing.cli import Harness

    h = Harness(tmp_path / "state", extra_env={"EDITOR": "sed -i s/size:\\ 2/size:\\ 7/"})
    h.ok("cluster init")
    h.apply(WIDGET_CRD)
    h.apply(widget("w", "  size: 2\n"))
    assert h.ok("edit wd w") == "widget.example.com/w edited\n"
    assert h.ok(["get", "wd", "w", "-o", "jsonpath={.spec.size}{.metadata.generation}"]) == "72"


def test_a_null_the_schema_does_not_allow_is_dropped(cluster):
    """Decoding drops a null where the schema is not nullable (PruneNonNullableNullsWithoutDefaults),
    whether apply leaves it out of what it creates (it does) or create -f sends it."""
    cluster.apply(widget("n1", "  size: 2\n  color: null\n"))
    assert cluster.ok("get wd n1 -o jsonpath={.spec}") == '{"size":2}'
    assert cluster.ok("create -f -", stdin=widget("n2", "  size: 2\n  color: null\n")) == "widget.example.com/n2 created\n"
    assert cluster.ok("get wd n2 -o jsonpath={.spec}") == '{"size":2}'


def test_a_status_write_is_validated_by_the_status_schema_and_the_scale_paths(kubesim):
    """validator.go ValidateStatusUpdate: the status schema's errors name fields from the status
    down; the scale subresource's statusReplicasPath must hold an int64 (texts from the oracle)."""
    kubesim.apply(CRONTAB_CRD)
    kubesim.apply("apiVersion: stable.example.com/v1\nkind: CronTab\nmetadata:\n  name: c1\nspec:\n  replicas: 1\n")
    r = kubesim(["patch", "ct", "c1", "--subresource=status", "--type", "merge", "-p", '{"status":{"replicas":"x"}}'])
    assert (r.code, r.err) == (1, 'The CronTab "c1" is invalid: \n'
                                  '* status.replicas: Invalid value: "string": replicas in body must be of type integer: '
                                  '"string"\n'
                                  "* .status.replicas: Invalid value: 0: .status.replicas accessor error: x is of the "
                                  "type string, expected int64\n")
    r = kubesim(["patch", "ct", "c1", "--subresource=status", "--type", "merge", "-p",
                 '{"status":{"replicas":5,"extra":1}}'])
    assert (r.code, r.out, r.err) == (0, "crontab.stable.example.com/c1 patched\n", 'Warning: unknown field "status.extra"\n')
    assert kubesim.ok("get ct c1 -o jsonpath={.status}") == '{"replicas":5}'


def test_an_unknown_type_after_a_failed_first_command_is_not_a_crash(tmp_path):
    """A first command that fails before the cluster exists leaves an empty database; looking up
    a kind no CRD serves must still say so, not fail reading the missing tables."""
    from kubesim.testing.cli import Harness

    h = Harness(tmp_path / "state")
    assert h("explain-network a b").code == 1
    r = h("get wd")
    assert (r.code, r.out, r.err) == (1, "", 'error: the server doesn\'t have a resource type "wd"\n')
