"""StatefulSets end to end through the CLI (pinned clock and seed): the done-when walk-through of
issue 15 (scale 3 -> 5 -> 2 with claims kept, an image update rolling from the highest ordinal
while ``rollout status`` waits on the simulated clock, history and undo), and bad input refused
with the API server's exact text, exit 1 and the state untouched. Expected texts are what a real
v1.35 cluster and kubectl 1.36 printed for the same commands (the oracle, conformance/)."""

import pytest

from kubesim.testing.cli import snapshot

PVS = "".join(f"""---
apiVersion: v1
kind: PersistentVolume
metadata: {{name: pv{i}}}
spec:
  capacity: {{storage: 1Gi}}
  accessModes: [ReadWriteOnce]
  storageClassName: manual
  hostPath: {{path: /tmp/pv{i}}}
""" for i in range(5))

WEB = """apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: nginx
  replicas: 3
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        ports: [{containerPort: 80, name: web}]
        volumeMounts: [{name: data, mountPath: /usr/share/nginx/html}]
  volumeClaimTemplates:
  - metadata: {name: data}
    spec:
      accessModes: [ReadWriteOnce]
      storageClassName: manual
      resources: {requests: {storage: 1Gi}}
"""

DB = """apiVersion: apps/v1
kind: StatefulSet
metadata: {name: db}
spec:
  serviceName: db
  replicas: 1
  selector: {matchLabels: {app: db}}
  template:
    metadata: {labels: {app: db}}
    spec:
      containers: [{name: c, image: nginx}]
"""

READY_LATER = """apiVersion: apps/v1
kind: StatefulSet
metadata: {name: web}
spec:
  serviceName: nginx
  replicas: 3
  selector: {matchLabels: {app: nginx}}
  template:
    metadata: {labels: {app: nginx}}
    spec:
      containers:
      - name: nginx
        image: nginx:1.25
        readinessProbe:
          httpGet: {path: /, port: 80}
          initialDelaySeconds: 5
          periodSeconds: 5
"""


def names(out: str) -> list[str]:
    return [line.split()[0] for line in out.splitlines()[1:]]


def test_scaled_up_and_down_in_order_with_the_claims_kept(kubesim):
    kubesim.apply(PVS)
    assert kubesim.apply(WEB) == "statefulset.apps/web created\n"
    assert kubesim.ok("get sts web") == "NAME   READY   AGE\nweb    0/3     0s\n"  # web-0 pulls nginx:1.25
    kubesim.ok("advance 10s")  # web-0, then web-1, then web-2 pull their image and run
    assert kubesim.ok("get sts web") == "NAME   READY   AGE\nweb    3/3     10s\n"
    assert kubesim.ok("get sts web -o wide") == ("NAME   READY   AGE   CONTAINERS   IMAGES\n"
                                                 "web    3/3     10s   nginx        nginx:1.25\n")
    assert kubesim.ok("scale sts web --replicas=5") == "statefulset.apps/web scaled\n"
    assert names(kubesim.ok("get pods")) == [f"web-{i}" for i in range(5)]
    assert kubesim.ok("scale sts web --replicas=2") == "statefulset.apps/web scaled\n"
    assert names(kubesim.ok("get pods")) == ["web-0", "web-1"]
    assert names(kubesim.ok("get pvc")) == [f"data-web-{i}" for i in range(5)]
    events = [line.split(None, 4)[-1] for line in kubesim.ok("get events --field-selector involvedObject.kind=StatefulSet").splitlines()[1:]]
    assert events[:2] == ["Create Claim data-web-0 Pod web-0 in StatefulSet web success",
                          "Create Pod web-0 in StatefulSet web successful"]
    assert events[-3:] == [f"Delete Pod web-{i} in StatefulSet web successful" for i in (4, 3, 2)]
    assert kubesim.ok("get controllerrevisions") == ("NAME            CONTROLLER             REVISION   AGE\n"
                                                     "web-fdf959ccd   statefulset.apps/web   1          10s\n")
    describe = kubesim.ok("describe sts web")
    assert "Replicas:           2 desired | 2 total\n" in describe
    assert "Pods Status:        2 Running / 0 Waiting / 0 Succeeded / 0 Failed\n" in describe
    assert "Volume Claims:\n  Name:          data\n  StorageClass:  manual\n" in describe


def test_an_image_update_rolls_from_the_highest_ordinal_and_rollout_status_waits(kubesim):
    kubesim.apply(READY_LATER)
    assert kubesim.ok("rollout status sts/web") == ("Waiting for 3 pods to be ready...\n"
                                                    "Waiting for 2 pods to be ready...\n"
                                                    "Waiting for 2 pods to be ready...\n"
                                                    "Waiting for 1 pods to be ready...\n"
                                                    "Waiting for 1 pods to be ready...\n"
                                                    "partitioned roll out complete: 3 new pods have been updated...\n")
    assert kubesim.clock() == "2026-11-22T10:00:25Z"  # each pod pulls nginx:1.25 on its node first
    assert kubesim.ok("set image sts/web nginx=nginx:1.26") == "statefulset.apps/web image updated\n"
    out = kubesim.ok("rollout status sts/web")
    assert out.endswith("partitioned roll out complete: 3 new pods have been updated...\n")
    assert "Waiting for partitioned roll out to finish: 1 out of 3 new pods have been updated...\n" in out
    deletes = [line.split(None, 4)[-1] for line in kubesim.ok("get events").splitlines()
               if "SuccessfulDelete" in line]
    assert deletes == [f"Delete Pod web-{i} in StatefulSet web successful" for i in (2, 1, 0)]
    assert kubesim.ok("rollout history sts/web") == ("statefulset.apps/web \nREVISION  CHANGE-CAUSE\n"
                                                     "1         <none>\n2         <none>\n\n")
    assert kubesim.ok("rollout undo sts/web") == "statefulset.apps/web rolled back\n"
    kubesim.ok("rollout status sts/web")
    revisions = {line.split()[0]: line.split()[2] for line in kubesim.ok("get controllerrevisions").splitlines()[1:]}
    assert sorted(revisions.values()) == ["2", "3"]
    assert kubesim.ok("rollout undo sts/web --to-revision=3") == \
        "statefulset.apps/web skipped rollback (current template already matches revision 3)\n"
    images = {line.split()[0]: line.split()[1] for line in
              kubesim.ok("get pods -o custom-columns=N:.metadata.name,I:.spec.containers[0].image").splitlines()[1:]}
    assert images == {"web-0": "nginx:1.25", "web-1": "nginx:1.25", "web-2": "nginx:1.25"}


@pytest.mark.parametrize("command,err", [
    ("rollout pause sts/web", 'error: statefulsets.apps "web" pausing is not supported\n'),
    ("rollout undo sts/web --to-revision=7", "error: unable to find specified revision 7 in history\n"),
    ("rollout undo sts/web", "error: no last revision to roll back to\n"),
], ids=["pausing", "an unknown revision", "no earlier revision"])
def test_rollout_verbs_refuse_what_kubectl_refuses(kubesim, command, err):
    # created, not applied: an applied object would add undo's last-applied warning
    kubesim.ok("create -f -", stdin=WEB.replace("        volumeMounts: [{name: data, mountPath: /usr/share/nginx/html}]\n",
                                                "").split("  volumeClaimTemplates:")[0])
    before = snapshot(kubesim.state_dir)
    r = kubesim(command)
    assert (r.code, r.err) == (1, err)
    assert snapshot(kubesim.state_dir) == before


@pytest.mark.parametrize("edit,err", [
    (lambda m: m.replace("labels: {app: nginx}}", "labels: {app: other}}"),
     ('The StatefulSet "web" is invalid: spec.template.metadata.labels: Invalid value: {"app":"other"}: '
     "`selector` does not match template `labels`\n")),
    (lambda m: m.replace("replicas: 3", "replicas: 3\n  podManagementPolicy: Sometimes"),
     ('The StatefulSet "web" is invalid: spec.podManagementPolicy: Invalid value: "Sometimes": '
     "must be 'OrderedReady' or 'Parallel'\n")),
    (lambda m: m.replace("replicas: 3", "replicas: 3\n  updateStrategy: {type: Blue}"),
     ('The StatefulSet "web" is invalid: spec.updateStrategy: Invalid value: {"Type":"Blue","RollingUpdate":null}: '
     "must be 'RollingUpdate' or 'OnDelete'\n")),
    (lambda m: m.replace("  volumeClaimTemplates:", "  xvolumeClaimTemplates:"),
     ('Error from server (BadRequest): error when creating "STDIN": StatefulSet in version "v1" cannot be handled as '
     'a StatefulSet: strict decoding error: unknown field "spec.xvolumeClaimTemplates"\n')),
], ids=["a selector that does not match", "an unknown pod management policy", "an unknown update strategy",
        "an unknown field"])
def test_bad_statefulsets_are_refused_and_nothing_is_written(kubesim, edit, err):
    kubesim.ok("get ns")
    before = snapshot(kubesim.state_dir)
    r = kubesim("apply -f -", stdin=edit(WEB))
    assert (r.code, r.err) == (1, err)
    assert snapshot(kubesim.state_dir) == before


@pytest.mark.parametrize("edit", [
    lambda m: m.replace("serviceName: nginx", "serviceName: other"),
    lambda m: m.replace("replicas: 3", "replicas: 3\n  podManagementPolicy: Parallel"),
    lambda m: m.replace("storage: 1Gi}}", "storage: 2Gi}}"),
], ids=["the service name", "the pod management policy", "a claim template"])
def test_changing_an_immutable_field_is_forbidden(kubesim, edit):
    kubesim.apply(PVS + WEB)
    before = snapshot(kubesim.state_dir)
    r = kubesim("apply -f -", stdin=edit(WEB))
    assert (r.code, r.err) == (1, ('The StatefulSet "web" is invalid: spec: Forbidden: updates to statefulset spec for '
                                  "fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', "
                                  "'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and "
                                  "'minReadySeconds' are forbidden\n"))
    assert snapshot(kubesim.state_dir) == before


def test_pod_topology_spread_default_constraints_select_by_the_statefulsets_selector(kubesim):
    # helper.DefaultSelector: a pod controlled by a StatefulSet spreads against the pods its
    # selector matches, here a lone app=db pod on node02 (hostname domain: 1 matching pod there)
    kubesim.apply("""apiVersion: v1
kind: Pod
metadata: {name: lone, labels: {app: db}}
spec:
  nodeName: node02
  containers: [{name: c, image: nginx}]
---
""" + DB)
    rows = {line.split()[0]: line for line in kubesim.ok("explain-schedule db-0").splitlines()
            if line.startswith(" node0")}
    assert "2 → 100 ×2 = 200" in rows["node01"] and "3 → 66 ×2 = 132" in rows["node02"]
    assert "← chosen" in rows["node01"]


def test_a_refused_pod_is_created_once_what_it_lacked_exists(kubesim):
    """The ServiceAccount admission plugin refuses web-0 (no such account): FailedCreate, then,
    once the account exists, the controller's next try creates it."""
    kubesim.apply(DB.replace("    spec:\n", "    spec:\n      serviceAccountName: dbsa\n"))
    msg = kubesim.ok("get events --field-selector reason=FailedCreate -o jsonpath={.items[0].message}")
    assert msg == ('Create Pod db-0 in StatefulSet db failed error: pods "db-0" is forbidden: error looking up '
                   'service account default/dbsa: serviceaccount "dbsa" not found')
    kubesim.ok("advance 2s")  # retried with back-off: 5ms, 10ms, ... (the oracle: 10 tries in 2 s)
    assert int(kubesim.ok("get events --field-selector reason=FailedCreate -o jsonpath={.items[0].count}")) >= 9
    kubesim.ok("create serviceaccount dbsa")
    assert kubesim.ok("get pods -o name") == ""
    kubesim.ok("advance 5s")
    assert kubesim.ok("get pods -o name") == "pod/db-0\n"


def test_a_claim_the_quota_refuses_holds_its_pod_back(kubesim):
    """As on the v1.35 oracle (the same texts, x10 in 3 s): CreateStatefulPod records the refused
    claim and the pod it could not create, on the StatefulSet, and retries with back-off."""
    kubesim.ok("create quota none --hard=persistentvolumeclaims=0")
    kubesim.apply(WEB.replace("replicas: 3", "replicas: 1"))
    kubesim.ok("advance 3s")
    refused = ('persistentvolumeclaims "data-web-0" is forbidden: exceeded quota: none, requested: '
               "persistentvolumeclaims=1, used: persistentvolumeclaims=0, limited: persistentvolumeclaims=0")
    got = kubesim.ok(["get", "events", "--field-selector", "reason=FailedCreate", "-o",
                      "jsonpath={range .items[*]}{.count}|{.message}{'\\n'}{end}"]).splitlines()
    assert [(int(c) >= 9, m) for c, m in (line.split("|", 1) for line in got)] == [
        (True, f"Create Claim data-web-0 for Pod web-0 in StatefulSet web failed error: {refused}"),
        (True, f"Create Pod web-0 in StatefulSet web failed error: failed to create PVC data-web-0: {refused}")]
    assert kubesim.ok("get pods,pvc -o name") == ""


def test_a_pod_waits_for_every_claim_not_only_its_first(kubesim):
    """Two claim templates, room for one claim: the second is refused, so no pod (the event
    names the refused claim), as CreateStatefulPod returns on any claim's error."""
    kubesim.ok("create quota one --hard=persistentvolumeclaims=1")
    two = WEB.replace("replicas: 3", "replicas: 1") + \
        "  - metadata: {name: logs}\n    spec: {accessModes: [ReadWriteOnce], storageClassName: manual, " \
        "resources: {requests: {storage: 1Gi}}}\n"
    kubesim.apply(two)
    assert kubesim.ok("get pods,pvc -o name") == "persistentvolumeclaim/data-web-0\n"
    pod_event = kubesim.ok("get events --field-selector reason=FailedCreate -o jsonpath={.items[1].message}")
    assert pod_event.startswith("Create Pod web-0 in StatefulSet web failed error: failed to create PVC logs-web-0: ")
