"""A wrong-but-plausible answer fails its drill, and the check says why in the cluster's own
terms: the scheduler's message, a container's waiting reason, a field's value against the one
asked for, a Service's selector against the pods' labels, what can-i answers.

Each case: the drill, the answer typed (``{{var}}`` is the drill's variable for seed 3), and
text the failed check's explanation must hold."""

import pytest

from kubesim.practice import script
from kubesim.practice.task import find_task, render

SEED = 3

POD = """cat <<EOF | kubectl apply -f -
apiVersion: v1
kind: Pod
metadata:
  name: NAME
spec:
  containers:
  - name: main
    image: busybox:1.36
    command: [sleep, "3600"]
    resources:
      requests: {REQ}
EOF"""

CASES = [
    ("manual-scheduling", "a pod the scheduler placed instead of one bound by hand",
     "kubectl run {{pod}} --image=nginx",
     'Pod "{{pod}}": spec.nodeName is node0'),
    ("pod-affinity-pair", "Deployments without any affinity",
     ("kubectl create deployment {{first}} --image=nginx --replicas=2\n"
     "kubectl create deployment {{second}} --image=nginx --replicas=2"),
     ("podAntiAffinity.requiredDuringSchedulingIgnoredDuringExecution[*].topologyKey not set, "
     "expected kubernetes.io/hostname")),
    ("broken-image", "the image set on a container name the Deployment does not have",
     "kubectl -n {{ns}} set image deployment/{{app}} nginx=nginx:1.27",
     "container web is waiting: ImagePullBackOff: Back-off pulling image \"nginx:{{tag}}\""),
    ("missing-configmap", "a ConfigMap with the wrong key",
     "kubectl create configmap {{cm}} --from-literal=level={{level}}",
     "container app is waiting: CreateContainerConfigError"),
    ("notready-node", "uncordoning the node instead of starting its kubelet",
     "kubectl uncordon {{node}}",
     'Node "{{node}}": status.conditions[type=Ready].status is Unknown, expected True'),
    ("pending-resources", "a request still larger than a node",
     "kubectl delete pod {{pod}}\n" + POD.replace("NAME", "{{pod}}").replace("REQ", "cpu: 5"),
     "pod {{pod}} is Pending: 0/3 nodes are available: "),
    ("pending-resources", "(the explanation names the shortage and points at explain-schedule)",
     "kubectl delete pod {{pod}}\n" + POD.replace("NAME", "{{pod}}").replace("REQ", "cpu: 5"),
     ("2 Insufficient cpu. no new claims to deallocate, preemption: 0/3 nodes are available: 3 Preemption is not "
     "helpful for scheduling. (run kubesim explain-schedule {{pod}})")),
    ("crashloop", "the pod re-created with the same failing command",
     ("kubectl delete pod {{pod}}\n"
     "kubectl run {{pod}} --image=busybox:1.36 --command -- sh -c \"echo starting && cat /app/{{pod}}.conf && sleep 3600\""),
     "exit code 1"),
    ("service-selector", "a selector that still names the wrong label",
     "kubectl patch service {{app}} --type=merge -p '{\"spec\":{\"selector\":{\"tier\":\"web\"}}}'",
     ("selector app={{app}}-web,tier=web matches no pod in namespace \"default\"; pods there are labelled "
     "app={{app}},pod-template-hash=")),
    ("pending-nodeselector", "a node label with the wrong key",
     "kubectl label nodes {{node}} disk={{disk}}",
     "didn't match Pod's node affinity/selector"),
    ("pending-taint", "the taint removed from one node only",
     "kubectl taint nodes node01 {{key}}=true:NoSchedule-",
     'Node "node02": spec.taints[*].key is {{key}}, expected it unset'),
    ("cordoned-nodes", "one node uncordoned, the other forgotten",
     "kubectl uncordon node01",
     'Node "node02": spec.unschedulable is True, expected it unset'),
    ("rbac-pod-reader", "a Role without watch",
     ("kubectl -n {{ns}} create role pod-reader --verb=get,list --resource=pods\n"
     "kubectl -n {{ns}} create rolebinding {{user}}-pod-reader --role=pod-reader --user={{user}}"),
     "kubectl auth can-i watch pods -n {{ns}} --as {{user}} says no, expected yes"),
    ("rbac-serviceaccount", "a ClusterRoleBinding, which grants it in every namespace",
     ("kubectl -n {{ns}} create serviceaccount {{sa}}\n"
     "kubectl create clusterrole deployment-manager --verb=create,get,list,update,delete --resource=deployments.apps\n"
     "kubectl create clusterrolebinding {{sa}}-binding --clusterrole=deployment-manager --serviceaccount={{ns}}:{{sa}}"),
     ("kubectl auth can-i create deployments.apps -n default --as system:serviceaccount:{{ns}}:{{sa}} says yes, "
     "expected no")),
    ("rbac-fix-binding", "the right user added but the wrong one kept",
     ("kubectl -n monitoring patch rolebinding config-editors --type=json "
     "-p '[{\"op\":\"add\",\"path\":\"/subjects/-\",\"value\":{\"apiGroup\":\"rbac.authorization.k8s.io\","
     "\"kind\":\"User\",\"name\":\"{{user}}\"}}]'"),
     "--as {{other}} says yes, expected no"),
    ("static-pod", "a regular pod made through the API server",
     "kubectl run {{name}} --image=nginx:1.27",
     'Pod "{{name}}-{{node}}" not found in namespace "default" (there: {{name}})'),
    ("drain-node", "cordoning without evicting",
     "kubectl cordon {{node}}",
     "runs on {{node}}"),
    ("expose-clusterip", "a Service without a target port",
     "kubectl expose deployment {{app}} --name={{app}}-svc --port={{port}}",
     "targetPort is {{port}}, expected 80"),
    ("netpol-allow-app", "a policy that admits the API on every port",
     ("cat <<EOF | kubectl apply -f -\n"
     "apiVersion: networking.k8s.io/v1\nkind: NetworkPolicy\nmetadata:\n  name: db-from-api\n  namespace: backend\n"
     "spec:\n  podSelector:\n    matchLabels: {app: db}\n  ingress:\n  - from:\n    - podSelector:\n"
     "        matchLabels: {app: api}\nEOF"),
     "spec.ingress[*].ports[*].port not set, expected {{port}}"),
    ("ingress-host", "a rule without /*, which makes an Exact path for /",
     "kubectl create ingress {{app}} --class=nginx --rule=\"{{app}}.{{domain}}/={{app}}:80\"",
     'Ingress "{{app}}": spec.rules[0].http.paths[path=/].pathType is Exact, expected Prefix'),
    ("resources-qos", "requests without limits",
     ("cat <<EOF | kubectl apply -f -\napiVersion: v1\nkind: Pod\nmetadata:\n  name: critical-cache\nspec:\n"
     "  containers:\n  - name: redis\n    image: redis:7\n    resources:\n"
     "      requests: {cpu: {{cpu}}, memory: {{mem}}}\nEOF"),
     'Pod "critical-cache": status.qosClass is Burstable, expected Guaranteed'),
    ("rollout-undo", "rolling forward to another version instead of back",
     "kubectl set image deployment/{{app}} nginx=nginx:1.27",
     "spec.template.spec.containers[0].image is nginx:1.27, expected nginx:1.26"),
    ("daemonset-all-nodes", "a DaemonSet that does not tolerate the control plane's taint",
     ("kubectl create deployment {{name}} -n kube-system --image=busybox:1.36 --dry-run=client -o yaml\n"
     "cat <<EOF | kubectl apply -f -\napiVersion: apps/v1\nkind: DaemonSet\nmetadata:\n  name: {{name}}\n"
     "  namespace: kube-system\nspec:\n  selector:\n    matchLabels: {app: {{name}}}\n  template:\n"
     "    metadata:\n      labels: {app: {{name}}}\n    spec:\n      containers:\n      - name: agent\n"
     "        image: busybox:1.36\n        command: [sleep, infinity]\nEOF"),
     "status.desiredNumberScheduled is 2, expected 3"),
    ("pvc-bind", "a claim with the wrong access mode",
     ("cat <<EOF | kubectl apply -f -\napiVersion: v1\nkind: PersistentVolumeClaim\nmetadata:\n  name: {{ns}}-claim\n"
     "  namespace: {{ns}}\nspec:\n  storageClassName: manual\n  accessModes: [ReadWriteOnce]\n  resources:\n"
     "    requests: {storage: 2Gi}\nEOF"),
     "status.phase is Pending, expected Bound"),
    ("default-storageclass", "a second default class",
     "kubectl annotate storageclass fast storageclass.kubernetes.io/is-default-class=true",
     'StorageClass "standard": metadata.annotations["storageclass.kubernetes.io/is-default-class"] is true'),
    ("priority-preemption", "the important pod without its PriorityClass",
     "kubectl create priorityclass high --value=1000000\n" + POD.replace("NAME", "important").replace("REQ", "cpu: 1"),
     "pod important is Pending: 0/2 nodes are available: 1 Insufficient cpu"),
    ("quota-blocks-deployment", "a quota raised to exactly the replicas",
     "kubectl -n {{ns}} patch resourcequota pod-count -p '{\"spec\":{\"hard\":{\"pods\":\"4\"}}}'",
     "spec.hard.pods is 4, expected 5"),
    ("quota-blocks-deployment", "a quota raised too little (the ReplicaSet's FailedCreate says why)",
     ("kubectl -n {{ns}} patch resourcequota pod-count -p '{\"spec\":{\"hard\":{\"pods\":\"3\"}}}'\n"
     "kubectl -n {{ns}} rollout status deployment/web --timeout=1m"),
     "Deployment web: 3/4 ready, 3 up to date: replicaset/web-"),
    ("quota-blocks-deployment", "(the quota's own refusal, as the event has it)",
     ("kubectl -n {{ns}} patch resourcequota pod-count -p '{\"spec\":{\"hard\":{\"pods\":\"3\"}}}'\n"
     "kubectl -n {{ns}} rollout status deployment/web --timeout=1m"),
     "is forbidden: exceeded quota: pod-count, requested: pods=1, used: pods=3, limited: pods=3"),
]


def _result(r):
    return r.code, r.out, r.err


@pytest.mark.parametrize("task_id,why,answer,explanation", CASES, ids=[f"{c[0]}: {c[1]}" for c in CASES])
def test_a_wrong_answer_fails_with_the_explanation_a_learner_needs(drill, task_id, why, answer, explanation):
    h = drill(task_id, SEED)
    values = find_task(task_id).variables(SEED)
    steps = script.parse(render(answer, values))
    script.run(steps, lambda argv, stdin: _result(h(list(argv), stdin)), stop_on_error=False)
    h.ok("advance 1m")  # as long as a right answer is given to settle
    r = h("drill check")
    assert r.code == 1, r.out
    assert render(explanation, values) in r.out, r.out
