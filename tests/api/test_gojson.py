"""Tests for kubesim.api.gojson: json.Marshal of kubesim's objects as the API server's Go types,
and apimachinery's diff.Diff.

Every expected text was produced by Go itself (v1.35.4 source, go1.26): the v1 JSON decoded into
the k8s.io/api type, converted with ``legacyscheme.Scheme.Convert`` to the internal type, then
``json.Marshal`` or ``diff.Diff`` of it. The pod diff was also checked against a real v1.35
API server (``kubectl apply --dry-run=server`` of a pod gaining a container port).
"""

from __future__ import annotations

import pytest

from kubesim.api.gofmt import go_json
from kubesim.api.gojson import GoJSON, diff, marshal
from kubesim.api.gotypes import LAYOUTS

CONTAINER_ZERO = ('"Command":null,"Args":null,"WorkingDir":"","Ports":null,"EnvFrom":null,"Env":null,'
                  '"Resources":{"Limits":null,"Requests":null,"Claims":null},"ResizePolicy":null,'
                  '"RestartPolicy":null,"RestartPolicyRules":null,"VolumeMounts":null,"VolumeDevices":null,'
                  '"LivenessProbe":null,"ReadinessProbe":null,"StartupProbe":null,"Lifecycle":null,'
                  '"TerminationMessagePath":"","TerminationMessagePolicy":"","ImagePullPolicy":"",'
                  '"SecurityContext":null,"Stdin":false,"StdinOnce":false,"TTY":false')

MARSHAL_CASES = [
    pytest.param({"minAvailable": "50%", "maxUnavailable": 1, "unhealthyPodEvictionPolicy": "AlwaysAllow",
                  "selector": {"matchLabels": {"app": "a"}, "matchExpressions": [{"key": "b", "operator": "Exists"}]}},
                 "PodDisruptionBudgetSpec",
                 '{"MinAvailable":"50%","Selector":{"matchLabels":{"app":"a"},"matchExpressions":[{"key":"b",'
                 '"operator":"Exists"}]},"MaxUnavailable":1,"UnhealthyPodEvictionPolicy":"AlwaysAllow"}',
                 id="internal fields in declaration order, an external selector with its json tags"),
    pytest.param({"minAvailable": 1}, "PodDisruptionBudgetSpec",
                 '{"MinAvailable":1,"Selector":null,"MaxUnavailable":null,"UnhealthyPodEvictionPolicy":null}',
                 id="nil pointers are null"),
    pytest.param({"type": "Foo", "rollingUpdate": {"maxSurge": 2, "maxUnavailable": "10%"}}, "DeploymentStrategy",
                 '{"Type":"Foo","RollingUpdate":{"MaxUnavailable":"10%","MaxSurge":2}}',
                 id="IntOrString as a string or a number"),
    pytest.param({"type": "RollingUpdate", "rollingUpdate": {}}, "DeploymentStrategy",
                 '{"Type":"RollingUpdate","RollingUpdate":{"MaxUnavailable":0,"MaxSurge":0}}',
                 id="a zero IntOrString is 0"),
    pytest.param({"key": "a", "value": "2", "effect": "NoSchedule", "timeAdded": "2024-05-06T07:08:09Z"}, "Taint",
                 '{"Key":"a","Value":"2","Effect":"NoSchedule","TimeAdded":"2024-05-06T07:08:09Z"}',
                 id="a metav1.Time is its RFC 3339 text"),
    pytest.param({"required": {"nodeSelectorTerms": [{"matchExpressions": [{"key": "k", "operator": "In",
                                                                            "values": ["v"]}]}]}},
                 "*VolumeNodeAffinity",
                 '{"Required":{"NodeSelectorTerms":[{"MatchExpressions":[{"Key":"k","Operator":"In","Values":["v"]}],'
                 '"MatchFields":null}]}}',
                 id="nested internal structs"),
    pytest.param(None, "*VolumeNodeAffinity", "null", id="a nil pointer"),
    pytest.param({"name": "e", "image": "busybox", "targetContainerName": "c",
                  "env": [{"name": "A", "valueFrom": {"configMapKeyRef": {"name": "cm", "key": "k"}}}]},
                 "EphemeralContainer",
                 '{"Name":"e","Image":"busybox","Command":null,"Args":null,"WorkingDir":"","Ports":null,"EnvFrom":null,'
                 '"Env":[{"Name":"A","Value":"","ValueFrom":{"FieldRef":null,"ResourceFieldRef":null,"ConfigMapKeyRef":'
                 '{"Name":"cm","Key":"k","Optional":null},"SecretKeyRef":null,"FileKeyRef":null}}],'
                 + CONTAINER_ZERO.split('"Env":null,', 1)[1] + ',"TargetContainerName":"c"}',
                 id="embedded structs are promoted (EphemeralContainerCommon, LocalObjectReference)"),
    pytest.param({"name": "c", "ports": [], "livenessProbe": {"httpGet": {"port": "http", "path": "/"}, "periodSeconds": 5}},
                 "Container",
                 '{"Name":"c","Image":"","Command":null,"Args":null,"WorkingDir":"","Ports":[],'
                 + CONTAINER_ZERO.split('"Ports":null,', 1)[1].replace(
                     '"LivenessProbe":null', '"LivenessProbe":{"Exec":null,"HTTPGet":{"Path":"/","Port":"http",'
                     '"Host":"","Scheme":"","HTTPHeaders":null},"TCPSocket":null,"GRPC":null,"InitialDelaySeconds":0,'
                     '"TimeoutSeconds":0,"PeriodSeconds":5,"SuccessThreshold":0,"FailureThreshold":0,'
                     '"TerminationGracePeriodSeconds":null}') + "}",
                 id="an empty list stays [] and a probe's handler is promoted"),
    pytest.param({"accessModes": ["ReadWriteOnce"], "resources": {"requests": {"storage": "1500Mi", "cpu": "1000m"}},
                  "storageClassName": "", "dataSourceRef": {"kind": "PersistentVolumeClaim", "name": "src"}},
                 "PersistentVolumeClaimSpec",
                 '{"AccessModes":["ReadWriteOnce"],"Selector":null,"Resources":{"Limits":null,"Requests":{"cpu":"1",'
                 '"storage":"1500Mi"}},"VolumeName":"","StorageClassName":"","VolumeMode":null,"DataSource":null,'
                 '"DataSourceRef":{"APIGroup":null,"Kind":"PersistentVolumeClaim","Name":"src","Namespace":null},'
                 '"VolumeAttributesClassName":null}',
                 id="quantities in canonical form, map keys sorted, a set pointer to an empty string"),
    pytest.param({"apiVersion": "v1", "kind": "Event", "name": "e", "uid": "1234"}, "OwnerReference",
                 '{"apiVersion":"v1","kind":"Event","name":"e","uid":"1234"}', id="omitempty fields left out"),
    pytest.param([{"apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "b", "uid": "u2", "controller": True,
                   "blockOwnerDeletion": False}], "[]OwnerReference",
                 '[{"apiVersion":"apps/v1","kind":"ReplicaSet","name":"b","uid":"u2","controller":true,'
                 '"blockOwnerDeletion":false}]', id="omitempty keeps a set pointer to false"),
    pytest.param({}, "*LabelSelector", "{}", id="an empty selector"),
    pytest.param({"cpu": 1, "storage": "1Gi"}, "map[string]Quantity", '{"cpu":"1","storage":"1Gi"}',
                 id="a ResourceList"),
    pytest.param(None, "map[string]Quantity", "null", id="a nil map"),
    pytest.param(["1.1.1.1", "2.2.2.2"], None, '["1.1.1.1","2.2.2.2"]', id="a []string"),
    pytest.param({"b": "<x&y>", "a": "1"}, None, '{"a":"1","b":"\\u003cx\\u0026y\\u003e"}',
                 id="a map[string]string: keys sorted, HTML escaped"),
]


@pytest.mark.parametrize(("value", "go_type", "text"), MARSHAL_CASES)
def test_marshal_as_go_does(value, go_type, text):
    assert marshal(value, go_type) == text
    assert str(GoJSON(value, go_type)) == text


def test_a_pod_spec_takes_the_host_fields_and_the_deprecated_service_account():
    text = marshal({"containers": [{"name": "c"}], "serviceAccount": "old", "hostNetwork": True}, "PodSpec")
    assert '"ServiceAccountName":"old"' in text
    assert '"SecurityContext":{"HostNetwork":true,"HostPID":false,"HostIPC":false,"ShareProcessNamespace":null,' in text


def test_the_persistent_volume_claim_template_reads_its_metadata():
    spec = {"volumes": [{"name": "v", "ephemeral": {"volumeClaimTemplate": {
        "metadata": {"labels": {"a": "b"}}, "spec": {"accessModes": ["ReadWriteOnce"]}}}}]}
    assert '"Ephemeral":{"VolumeClaimTemplate":{"labels":{"a":"b"},"Spec":{"AccessModes":["ReadWriteOnce"],' in marshal(
        spec, "PodSpec")


def test_every_layout_names_known_types():
    known = {"string", "int", "bool", "float", "Quantity", "IntOrString", "Time", "FieldsV1"}
    names = {line.split()[0] for line in LAYOUTS.splitlines() if line and not line.startswith(" ")}
    for line in LAYOUTS.splitlines():
        if line.startswith(" "):
            words = line.split()
            typ = words[0][3:] if words[0].startswith("...") else words[1]
            base = typ.lstrip("*[]").removeprefix("map[string]").lstrip("*[]")
            assert base in known | names, line


WEB_SPEC = {
    "containers": [{"image": "nginx", "imagePullPolicy": "Always", "name": "c",
                    "resources": {"requests": {"cpu": "1"}},
                    "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                    "volumeMounts": [{"mountPath": "/var/run/secrets/kubernetes.io/serviceaccount",
                                      "name": "kube-api-access-dbw22", "readOnly": True}]}],
    "dnsPolicy": "ClusterFirst", "enableServiceLinks": True, "nodeName": "node01",
    "preemptionPolicy": "PreemptLowerPriority", "priority": 1000, "priorityClassName": "high",
    "restartPolicy": "Always", "schedulerName": "default-scheduler", "securityContext": {},
    "serviceAccount": "default", "serviceAccountName": "default", "terminationGracePeriodSeconds": 30,
    "tolerations": [{"effect": "NoExecute", "key": "node.kubernetes.io/not-ready", "operator": "Exists",
                     "tolerationSeconds": 300},
                    {"effect": "NoExecute", "key": "node.kubernetes.io/unreachable", "operator": "Exists",
                     "tolerationSeconds": 300}],
    "volumes": [{"name": "kube-api-access-dbw22", "projected": {"defaultMode": 420, "sources": [
        {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
        {"configMap": {"items": [{"key": "ca.crt", "path": "ca.crt"}], "name": "kube-root-ca.crt"}},
        {"downwardAPI": {"items": [{"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"},
                                    "path": "namespace"}]}}]}}],
}

WEB_DIFF = """\
@@ -96,7 +96,15 @@
    "Command": null,
    "Args": null,
    "WorkingDir": "",
-   "Ports": null,
+   "Ports": [
+    {
+     "Name": "",
+     "HostPort": 0,
+     "ContainerPort": 8080,
+     "Protocol": "TCP",
+     "HostIP": ""
+    }
+   ],
    "EnvFrom": null,
    "Env": null,
    "Resources": {
"""

HOST_DIFF = """\
@@ -44,14 +44,14 @@
  "AutomountServiceAccountToken": null,
  "NodeName": "",
  "SecurityContext": {
-  "HostNetwork": false,
+  "HostNetwork": true,
   "HostPID": false,
   "HostIPC": false,
   "ShareProcessNamespace": null,
   "HostUsers": null,
   "SELinuxOptions": null,
   "WindowsOptions": null,
-  "RunAsUser": null,
+  "RunAsUser": 5,
   "RunAsGroup": null,
   "RunAsNonRoot": null,
   "SupplementalGroups": null,
"""

HOST_PATH_DIFF = """\
@@ -2,8 +2,8 @@
  "GCEPersistentDisk": null,
  "AWSElasticBlockStore": null,
  "HostPath": {
-  "Path": "/a",
-  "Type": null
+  "Path": "/b",
+  "Type": ""
  },
  "Glusterfs": null,
  "NFS": null,
"""


def _with_port(spec: dict) -> dict:
    new = {**spec, "containers": [{**spec["containers"][0], "ports": [{"containerPort": 8080, "protocol": "TCP"}]}]}
    return new


DIFF_CASES = [
    pytest.param(WEB_SPEC, _with_port(WEB_SPEC), "PodSpec", WEB_DIFF,
                 id="a pod gains a port (real v1.35 API server)"),
    pytest.param({"containers": [{"name": "c", "image": "a"}], "serviceAccount": "old"},
                 {"containers": [{"name": "c", "image": "a"}], "serviceAccount": "old", "hostNetwork": True,
                  "securityContext": {"runAsUser": 5}}, "PodSpec", HOST_DIFF,
                 id="two changes four lines apart share a hunk"),
    pytest.param({"hostPath": {"path": "/a"}}, {"hostPath": {"path": "/b", "type": ""}}, "PersistentVolumeSource",
                 HOST_PATH_DIFF, id="a persistent volume source"),
    pytest.param({"hostPath": {"path": "/a"}}, {"hostPath": {"path": "/a"}}, "PersistentVolumeSource", "",
                 id="no difference, no text"),
]


@pytest.mark.parametrize(("old", "new", "go_type", "text"), DIFF_CASES)
def test_diff_as_apimachinery_writes_it(old, new, go_type, text):
    assert diff(old, new, go_type) == text


def test_go_json_keeps_a_struct_order_when_asked():
    assert go_json({"b": 1, "a": {"d": 2, "c": 3}}, sort_keys=False) == '{"b":1,"a":{"d":2,"c":3}}'
    assert go_json({"b": 1, "a": {"d": 2, "c": 3}}) == '{"a":{"c":3,"d":2},"b":1}'
