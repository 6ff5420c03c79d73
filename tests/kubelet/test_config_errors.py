"""A kubelet that fails like a real one when a pod's configuration is missing: the environment
(pkg/kubelet/kubelet_pods.go makeEnvironmentVariables, kuberuntime_container.go startContainer:
CreateContainerConfigError and ``Error: ...``) and configMap/secret/projected volumes
(pkg/volume/configmap, secret, projected SetUpAt and MakePayload; the FailedMount event of the
operation executor, retried with exponentialbackoff's 500ms doubling to 2m2s). The texts are
upstream's (the oracle's KWOK nodes have no kubelet to compare with)."""

from __future__ import annotations

import pytest

from kubesim.kubelet.kubelet_pods import env_config_error, with_resolved_env
from kubesim.kubelet.volumes import mount_attempt_offset, setup_errors
from kubesim.testing.cli import Harness

CM = {"kind": "ConfigMap", "metadata": {"name": "app", "namespace": "ns"}, "data": {"mode": "prod"},
      "binaryData": {"blob": "AAE="}}
SECRET = {"kind": "Secret", "metadata": {"name": "db", "namespace": "ns"}, "data": {"password": "czNjcjN0"}}


def get(kind, ns, name):
    return {("ConfigMap", "ns", "app"): CM, ("Secret", "ns", "db"): SECRET}.get((kind, ns, name))


POD = {"metadata": {"name": "p", "namespace": "ns"}}


@pytest.mark.parametrize("container, want", [
    ({"env": [{"name": "A", "value": "1"}]}, None),
    ({"env": [{"name": "M", "valueFrom": {"configMapKeyRef": {"name": "app", "key": "mode"}}}]}, None),
    ({"env": [{"name": "M", "valueFrom": {"configMapKeyRef": {"name": "nope", "key": "mode"}}}]},
     'configmap "nope" not found'),
    ({"env": [{"name": "M", "valueFrom": {"configMapKeyRef": {"name": "nope", "key": "mode", "optional": True}}}]},
     None),
    ({"env": [{"name": "M", "valueFrom": {"configMapKeyRef": {"name": "app", "key": "blob"}}}]},
     "couldn't find key blob in ConfigMap ns/app"),
    ({"env": [{"name": "P", "valueFrom": {"secretKeyRef": {"name": "db", "key": "user"}}}]},
     "couldn't find key user in Secret ns/db"),
    ({"env": [{"name": "P", "valueFrom": {"secretKeyRef": {"name": "db", "key": "user", "optional": True}}}]}, None),
    ({"env": [{"name": "P", "valueFrom": {"secretKeyRef": {"name": "gone", "key": "x"}}}]}, 'secret "gone" not found'),
    ({"envFrom": [{"secretRef": {"name": "gone"}}],
      "env": [{"name": "M", "valueFrom": {"configMapKeyRef": {"name": "nope", "key": "mode"}}}]},
     'secret "gone" not found'),
    ({"envFrom": [{"configMapRef": {"name": "nope", "optional": True}}]}, None),
], ids=["a literal value", "a key of an existing ConfigMap", "a missing ConfigMap",
        "a missing optional ConfigMap", "a binaryData key is not a data key", "a missing Secret key",
        "a missing optional key", "a missing Secret", "envFrom is read before env",
        "a missing optional envFrom source"])
def test_make_environment_variables_refusals(container, want):
    assert env_config_error(POD, container, get) == want


def test_the_environment_a_container_sees():
    c = {"envFrom": [{"configMapRef": {"name": "app"}, "prefix": "APP_"}],
         "env": [{"name": "PASS", "valueFrom": {"secretKeyRef": {"name": "db", "key": "password"}}},
                 {"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}},
                 {"name": "APP_mode", "value": "override"}]}
    assert with_resolved_env(POD, c, get)["env"] == [
        {"name": "APP_mode", "value": "prod"}, {"name": "PASS", "value": "s3cr3t"}, {"name": "POD", "value": "p"},
        {"name": "APP_mode", "value": "override"}]


def vol(name, **source):
    return {"name": name, **source}


@pytest.mark.parametrize("volumes, want", [
    ([vol("c", configMap={"name": "app"})], []),
    ([vol("c", configMap={"name": "nope"})], [("c", 'configmap "nope" not found')]),
    ([vol("c", configMap={"name": "nope", "optional": True})], []),
    ([vol("c", configMap={"name": "app", "items": [{"key": "x", "path": "x"}]})],
     [("c", "configmap references non-existent config key: x")]),
    ([vol("c", configMap={"name": "app", "items": [{"key": "blob", "path": "b"}]})], []),
    ([vol("s", secret={"secretName": "nope"})], [("s", 'secret "nope" not found')]),
    ([vol("s", secret={"secretName": "db", "items": [{"key": "x", "path": "x"}]})],
     [("s", "references non-existent secret key: x")]),
    ([vol("p", projected={"sources": [{"configMap": {"name": "nope"}}, {"secret": {"name": "gone"}}]})],
     [("p", '[configmap "nope" not found, secret "gone" not found]')]),
], ids=["an existing ConfigMap", "a missing ConfigMap", "a missing optional ConfigMap",
        "an item naming a missing key", "binaryData keys count for a volume", "a missing Secret",
        "a Secret item naming a missing key", "a projected volume's errors are aggregated"])
def test_volume_setup_errors(volumes, want):
    pod = {"metadata": {"namespace": "ns"}, "spec": {"volumes": volumes}}
    assert setup_errors(pod, get) == [(v, f'MountVolume.SetUp failed for volume "{v}" : {e}') for v, e in want]


def test_mount_retries_back_off_from_500ms_doubling_to_2m2s():
    # 0, +0.5, +1, +2, +4, +8, +16, +32, +64, then +122 (the cap) each time
    assert [mount_attempt_offset(k) for k in range(11)] == [0, 0.5, 1.5, 3.5, 7.5, 15.5, 31.5, 63.5, 127.5, 249.5,
                                                            371.5]


VOLUME_POD = """apiVersion: v1
kind: Pod
metadata: {name: web}
spec:
  containers:
  - name: c
    image: nginx
    volumeMounts: [{name: creds, mountPath: /etc/creds}]
  volumes:
  - name: creds
    secret: {secretName: db-creds}
"""


def test_a_pod_stuck_on_a_missing_secret_volume_starts_at_the_first_attempt_after_it_appears(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("apply -f -", stdin=VOLUME_POD)
    assert "ContainerCreating" in h.ok("get pod web")
    h.ok("advance 3m")
    events = h.ok("describe pod web").split("Events:")[1]
    # attempts at 0, .5, 1.5, 3.5, 7.5, 15.5, 31.5, 63.5 and 127.5s: nine, the last stamped 127s
    assert "Warning  FailedMount  53s (x9 over 3m)  kubelet            MountVolume.SetUp failed for volume " \
           '"creds" : secret "db-creds" not found\n' in events
    h.ok("create secret generic db-creds --from-literal=password=s3cr3t")
    assert "ContainerCreating" in h.ok("get pod web")  # the next attempt is at 249.5s, then nginx is pulled
    h.ok("advance 70s")
    assert "ContainerCreating" in h.ok("get pod web")
    h.ok("advance 5s")
    assert "Running" in h.ok("get pod web")


ENV_POD = """apiVersion: v1
kind: Pod
metadata: {name: envpod}
spec:
  containers:
  - name: c
    image: busybox
    command: ["sh", "-c", "echo user=$DB_USER pass=$DB_PASS mode=$MODE; sleep 3600"]
    env:
    - name: DB_PASS
      valueFrom: {secretKeyRef: {name: db, key: password}}
    - name: MODE
      valueFrom: {configMapKeyRef: {name: app, key: mode}}
    envFrom:
    - secretRef: {name: db}
"""


def test_a_missing_secret_in_the_environment_is_a_create_container_config_error_until_it_appears(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("apply -f -", stdin=ENV_POD)
    h.ok("advance 1s")  # busybox (untagged: pulled at every start) pulled, then the config fails
    assert h.ok("get pod envpod -o jsonpath={.status.containerStatuses[0].state}") == \
        '{"waiting":{"message":"secret \\"db\\" not found","reason":"CreateContainerConfigError"}}'
    assert h.ok("get pod envpod").splitlines()[1].split()[2] == "CreateContainerConfigError"
    h.ok("advance 30s")
    # tried after each pull, at 0.6, 11 and 21.3s (the pod worker's requeue after a failed sync)
    assert 'Warning  Failed     10s (x3 over 31s)  kubelet            spec.containers{c}: Error: secret "db" ' \
           "not found\n" in h.ok("describe pod envpod")
    h.ok("create secret generic db --from-literal=DB_USER=admin --from-literal=password=s3cr3t")
    h.ok("advance 10s")
    assert "configmap \\\"app\\\" not found" in h.ok("get pod envpod -o jsonpath={.status.containerStatuses[0].state}")
    h.ok("create configmap app --from-literal=mode=prod")
    h.ok("advance 10s")
    assert "Running" in h.ok("get pod envpod")
    assert h.ok("logs envpod") == "user=admin pass=s3cr3t mode=prod\n"


READER = """apiVersion: v1
kind: Pod
metadata: {name: reader}
spec:
  containers:
  - name: c
    image: busybox
    command: ["sh", "-c", "cat /etc/app/mode; cat /etc/creds/user; cat /etc/one; cat /etc/app/nope; sleep 3600"]
    volumeMounts:
    - {name: config, mountPath: /etc/app}
    - {name: creds, mountPath: /etc/creds}
    - {name: config, mountPath: /etc/one, subPath: mode}
  volumes:
  - name: config
    configMap: {name: app-config}
  - name: creds
    secret: {secretName: db-creds, items: [{key: username, path: user}]}
"""


def test_a_container_reads_its_config_map_and_secret_volumes(tmp_path):
    h = Harness(tmp_path / "state")
    h.ok("create configmap app-config --from-literal=mode=production")
    h.ok("create secret generic db-creds --from-literal=username=admin")
    h.ok("apply -f -", stdin=READER)
    h.ok("advance 1s")  # busybox pulled
    assert h.ok("logs reader") == "production\nadmin\nproduction\n"
