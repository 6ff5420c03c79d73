"""Practice mode: CKA-style tasks on a prepared cluster, graded from the cluster's own objects.

Tasks are data (``kubesim/drills/<id>.yaml``, loaded and checked by ``task``); a task's setup
and its model solution are command lines a user would type (``script``); its checks are small
predicates over objects read through the client interface (``checks``), and a failed check
explains itself in the cluster's own terms (``diagnose``: the scheduler's FailedScheduling
message, a container's waiting reason, a Service's selector against the pods' labels, an
authorization verdict). ``exam`` picks a mock exam in the CNCF CKA curriculum's weights.

There is no upstream counterpart: real CKA practice environments (killer.sh, Killercoda) grade
with shell scripts against a real cluster. The predicates read objects as kubectl would
(``staging/src/k8s.io/kubectl/pkg/cmd/get``), and the explanations quote what the components
wrote (``pkg/scheduler/schedule_one.go`` FailedScheduling, ``pkg/kubelet/images`` back-off
reasons, ``pkg/controller/endpoint`` readiness).
"""
