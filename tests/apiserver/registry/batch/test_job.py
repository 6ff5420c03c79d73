"""The Job and CronJob strategies (pkg/registry/batch/job/strategy.go, cronjob/strategy.go): the
generated selector and template labels, the Job's labels from its template, a user's own label
kept (validation then refuses a conflict), manualSelector, the generation on update."""

import copy

from kubesim.apiserver.objects import prepare_for_create, prepare_for_update
from kubesim.apiserver.registry.batch.job import generate_selector


def job(**spec):
    s = {"template": {"spec": {"restartPolicy": "Never", "containers": [{"name": "c", "image": "busybox"}]}}}
    s.update(spec)
    return {"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "pi", "namespace": "default"}, "spec": s}


def test_a_new_job_gets_its_selector_and_labels_from_its_uid():
    j = job()
    prepare_for_create(j)
    uid = j["metadata"]["uid"]
    labels = {"batch.kubernetes.io/controller-uid": uid, "batch.kubernetes.io/job-name": "pi",
              "controller-uid": uid, "job-name": "pi"}
    assert j["spec"]["selector"] == {"matchLabels": {"batch.kubernetes.io/controller-uid": uid}}
    assert j["spec"]["template"]["metadata"]["labels"] == labels
    assert j["metadata"]["labels"] == labels  # SetDefaults_Job: a Job without labels takes its template's
    assert j["metadata"]["generation"] == 1 and j["status"] == {}
    assert (j["spec"]["completions"], j["spec"]["parallelism"], j["spec"]["backoffLimit"]) == (1, 1, 6)


def test_a_users_template_label_is_kept_for_validation_to_judge():
    j = job(template={"metadata": {"labels": {"job-name": "other"}}, "spec": {}})
    j["metadata"]["uid"] = "u"
    generate_selector(j)
    assert j["spec"]["template"]["metadata"]["labels"]["job-name"] == "other"


def test_a_manual_selector_is_left_alone():
    j = job(manualSelector=True, selector={"matchLabels": {"a": "b"}},
            template={"metadata": {"labels": {"a": "b"}}, "spec": {}})
    prepare_for_create(j)
    assert j["spec"]["selector"] == {"matchLabels": {"a": "b"}}
    assert j["spec"]["template"]["metadata"]["labels"] == {"a": "b"}


def test_backoff_limit_per_index_defaults_backoff_limit_to_max_int32():
    j = job(completionMode="Indexed", completions=3, backoffLimitPerIndex=1)
    prepare_for_create(j)
    assert j["spec"]["backoffLimit"] == 2**31 - 1


def test_a_pod_failure_policy_defaults_replacement_to_failed_and_patterns_to_true():
    j = job(podFailurePolicy={"rules": [{"action": "Ignore", "onPodConditions": [{"type": "DisruptionTarget"}]}]})
    prepare_for_create(j)
    assert j["spec"]["podReplacementPolicy"] == "Failed"
    assert j["spec"]["podFailurePolicy"]["rules"][0]["onPodConditions"] == [{"type": "DisruptionTarget",
                                                                              "status": "True"}]


def test_an_update_bumps_generation_only_when_the_spec_changes():
    old = job()
    prepare_for_create(old)
    old["status"] = {"active": 1}
    same = copy.deepcopy(old)
    prepare_for_update(same, old)
    assert same["metadata"]["generation"] == 1 and same["status"] == {"active": 1}
    changed = copy.deepcopy(old)
    changed["spec"]["parallelism"] = 3
    prepare_for_update(changed, old)
    assert changed["metadata"]["generation"] == 2


def test_a_cronjob_defaults_its_policies_but_not_its_job_template():
    cj = {"apiVersion": "batch/v1", "kind": "CronJob", "metadata": {"name": "c", "namespace": "default"},
          "spec": {"schedule": "@hourly", "jobTemplate": {"spec": job()["spec"]}}}
    prepare_for_create(cj)
    spec = cj["spec"]
    assert (spec["concurrencyPolicy"], spec["suspend"], spec["successfulJobsHistoryLimit"],
            spec["failedJobsHistoryLimit"]) == ("Allow", False, 3, 1)
    assert "completions" not in spec["jobTemplate"]["spec"] and "backoffLimit" not in spec["jobTemplate"]["spec"]
    assert spec["jobTemplate"]["spec"]["template"]["spec"]["dnsPolicy"] == "ClusterFirst"
