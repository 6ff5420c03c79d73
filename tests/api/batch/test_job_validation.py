"""Job validation (pkg/apis/batch/validation/validation.go), table-driven. Every expected text
was printed by a real v1.35 API server (``kubectl create --dry-run=server``) for the same
manifest; the cases follow validation_test.go's TestValidateJob error cases where they overlap
(negative counts, Indexed without completions, backoffLimitPerIndex on a NonIndexed Job, pod
failure policy rules, success policy without Indexed, a selector not auto-generated)."""

from __future__ import annotations

import copy

import pytest

from kubesim.testing.cli import Harness


def job(name: str, spec: dict, restart: str | None = "Never") -> dict:
    tspec = {"containers": [{"name": "c", "image": "busybox"}]}
    if restart is not None:
        tspec["restartPolicy"] = restart
    s = copy.deepcopy(spec)
    s["template"] = {"spec": tspec}
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": name}, "spec": s}


CASES = [
    ("negative counts are refused in upstream's order",
     job("b-neg", {"parallelism": -1, "completions": -2, "backoffLimit": -1, "activeDeadlineSeconds": -5,
                   "ttlSecondsAfterFinished": -1}),
     'The Job "b-neg" is invalid: \n'
     "* spec.parallelism: Invalid value: -1: must be greater than or equal to 0\n"
     "* spec.completions: Invalid value: -2: must be greater than or equal to 0\n"
     "* spec.activeDeadlineSeconds: Invalid value: -5: must be greater than or equal to 0\n"
     "* spec.backoffLimit: Invalid value: -1: must be greater than or equal to 0\n"
     "* spec.ttlSecondsAfterFinished: Invalid value: -1: must be greater than or equal to 0\n"),
    ("a defaulted Always restart policy is refused",
     job("b-always", {"completions": 1}, restart=None),
     'The Job "b-always" is invalid: spec.template.spec.restartPolicy: Required value: valid values: '
     '"OnFailure", "Never"\n'),
    ("an unknown completion mode",
     job("b-mode", {"completionMode": "Foo"}),
     'The Job "b-mode" is invalid: spec.completionMode: Unsupported value: "Foo": supported values: '
     '"NonIndexed", "Indexed"\n'),
    ("an Indexed job needs completions when parallelism is given",
     job("b-idx", {"completionMode": "Indexed", "parallelism": 2}),
     'The Job "b-idx" is invalid: spec.completions: Required value: when completion mode is Indexed\n'),
    ("backoffLimitPerIndex and maxFailedIndexes need Indexed",
     job("b-perindex", {"backoffLimitPerIndex": 1, "maxFailedIndexes": 2}),
     'The Job "b-perindex" is invalid: \n'
     "* spec.backoffLimitPerIndex: Invalid value: 1: requires indexed completion mode\n"
     "* spec.maxFailedIndexes: Invalid value: 2: requires indexed completion mode\n"),
    ("pod failure policy rules",
     {**job("b-pfp", {"podFailurePolicy": {"rules": [
         {"action": "Bogus", "onExitCodes": {"containerName": "x", "operator": "In", "values": [0, 3, 1, 1]}},
         {"action": "Ignore"},
         {"action": "FailIndex", "onPodConditions": [{"type": "DisruptionTarget"}]}]}}, restart="OnFailure")},
     'The Job "b-pfp" is invalid: \n'
     '* spec.podFailurePolicy.rules[0].action: Unsupported value: "Bogus": supported values: "Count", '
     '"FailIndex", "FailJob", "Ignore"\n'
     '* spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: "x": must be one of the '
     "container or initContainer names in the pod template\n"
     "* spec.podFailurePolicy.rules[0].onExitCodes.values[0]: Invalid value: 0: must not be 0 for the In operator\n"
     "* spec.podFailurePolicy.rules[0].onExitCodes.values[3]: Duplicate value: 1\n"
     "* spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [0,3,1,1]: must be ordered\n"
     "* spec.podFailurePolicy.rules[1]: Invalid value: specifying one of OnExitCodes and OnPodConditions is "
     "required\n"
     '* spec.podFailurePolicy.rules[2].action: Invalid value: "FailIndex": requires the backoffLimitPerIndex '
     "to be set\n"
     '* spec.template.spec.restartPolicy: Invalid value: "OnFailure": only "Never" is supported when '
     "podFailurePolicy is specified\n"),
    ("an unknown pod replacement policy",
     job("b-prp", {"podReplacementPolicy": "Foo"}),
     'The Job "b-prp" is invalid: spec.podReplacementPolicy: Unsupported value: "Foo": supported values: '
     '"Failed", "TerminatingOrFailed"\n'),
    ("a manual selector must be given",
     job("b-sel", {"manualSelector": True}),
     'The Job "b-sel" is invalid: \n* spec.selector: Required value\n'
     "* spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`\n"),
    ("a success policy needs Indexed",
     job("b-sp", {"completions": 3, "successPolicy": {"rules": [{"succeededIndexes": "0-5", "succeededCount": 4}]}}),
     'The Job "b-sp" is invalid: spec.successPolicy: Invalid value: {"Rules":[{"SucceededIndexes":"0-5",'
     '"SucceededCount":4}]}: requires indexed completion mode\n'),
    ("an Indexed job whose last hostname is not a DNS label",
     job("averyveryveryveryveryveryveryveryveryveryverylongjobname-abcdef",
         {"completionMode": "Indexed", "completions": 100}),
     'The Job "averyveryveryveryveryveryveryveryveryveryverylongjobname-abcdef" is invalid: metadata.name: '
     'Invalid value: "averyveryveryveryveryveryveryveryveryveryverylongjobname-abcdef": will not able to create '
     "pod with invalid DNS label: averyveryveryveryveryveryveryveryveryveryverylongjobname-abcdef-99\n"),
]


@pytest.mark.parametrize("manifest,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_jobs_are_refused_with_the_api_servers_text(tmp_path, manifest, expected):
    import json

    from kubesim.testing.cli import snapshot

    h = Harness(tmp_path)
    h.ok("get ns")
    before = snapshot(tmp_path)
    r = h("create -f -", stdin=json.dumps(manifest))
    assert (r.code, r.err) == (1, expected)
    assert snapshot(tmp_path) == before


def test_a_selector_not_auto_generated(tmp_path):
    h = Harness(tmp_path)
    r = h("create -f -", stdin='{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"b-sel2"},"spec":'
                               '{"selector":{"matchLabels":{"a":"b"}},"template":{"spec":{"restartPolicy":"Never",'
                               '"containers":[{"name":"c","image":"busybox"}]}}}}')
    assert r.code == 1
    assert "spec.selector: Invalid value: {\"matchLabels\":{\"a\":\"b\",\"batch.kubernetes.io/controller-uid\":" \
        in r.err and "`selector` not auto-generated" in r.err


UPDATES = [
    ("completions of a NonIndexed job are immutable", {"completions": 3},
     'The Job "upd" is invalid: spec.completions: Invalid value: 3: field is immutable\n'),
    ("the completion mode is immutable", {"completionMode": "Indexed"},
     'The Job "upd" is invalid: spec.completionMode: Invalid value: "Indexed": field is immutable\n'),
]


@pytest.mark.parametrize("patch,expected", [c[1:] for c in UPDATES], ids=[c[0] for c in UPDATES])
def test_immutable_fields(tmp_path, patch, expected):
    import json

    h = Harness(tmp_path)
    h.apply(json.dumps(job("upd", {"completions": 2, "suspend": True})))
    r = h(["patch", "job", "upd", "-p", json.dumps({"spec": patch})])
    assert (r.code, r.err) == (1, expected)


def test_a_suspended_job_may_change_parallelism_and_resume(tmp_path):
    import json

    h = Harness(tmp_path)
    h.apply(json.dumps(job("upd", {"completions": 2, "suspend": True})))
    assert h.ok(["patch", "job", "upd", "-p", '{"spec":{"parallelism":2,"suspend":false}}']) == \
        "job.batch/upd patched\n"
