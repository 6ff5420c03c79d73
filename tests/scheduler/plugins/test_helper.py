"""Plugin helpers: DefaultSelector (after upstream helper/spread_test.go)."""

import pytest

from kubesim.scheduler.plugins.helper import default_selector

from .podtopologyspread.builders import pod, replica_set, replication_controller, service
from .podtopologyspread.harness import RS_FOO


DEFAULT_SELECTOR_CASES = [
    pytest.param(pod(foo="bar").obj(), [service({"foo": "bar"}), service({"baz": "x"})],
                 "foo=bar", id="services selecting the pod give their selectors"),
    pytest.param(pod(foo="bar", a="1").obj(),
                 [service({"foo": "bar"}), service({"a": "1"}, name="s2")],
                 "a=1,foo=bar", id="the selectors of several services are merged"),
    pytest.param(pod(foo="bar").obj(), [service(None), service({})], "",
                 id="a service without selector selects nothing, an empty one adds nothing"),
    pytest.param(pod(foo="bar").owner("ReplicaSet", "rs1").obj(), [RS_FOO], "foo=bar",
                 id="the controlling replicaset's selector"),
    pytest.param(pod(foo="bar").owner("ReplicaSet", "rs1", controller=False).obj(), [RS_FOO],
                 "", id="an owner that is not the controller is ignored"),
    pytest.param(pod(foo="bar").owner("ReplicaSet", "rs2").obj(), [RS_FOO], "",
                 id="a controller that does not exist adds nothing"),
    pytest.param(pod(foo="bar").owner("ReplicaSet", "rs1", "extensions/v1beta1").obj(),
                 [RS_FOO], "", id="a controller of another API version is not supported"),
    pytest.param(pod(foo="bar", x="y").owner("StatefulSet", "ss").obj(),
                 [service({"x": "y"}),
                  replica_set("ss", {"matchExpressions": [{"key": "foo", "operator": "Exists"}]},
                              kind="StatefulSet")],
                 "foo,x=y", id="a statefulset's selector is added to the services'"),
    pytest.param(pod(foo="bar").owner("ReplicationController", "rc", "v1").obj(),
                 [replication_controller("rc", {"foo": "bar"})], "foo=bar",
                 id="the controlling replicationcontroller's selector"),
    pytest.param(pod(foo="bar").owner("ReplicaSet", "rs1").obj(),
                 [replica_set("rs1", None)], "",
                 id="a replicaset with a null selector adds nothing"),
]


@pytest.mark.parametrize("p, objs, want", DEFAULT_SELECTOR_CASES)
def test_default_selector(p, objs, want):
    by_kind = {k: [o for o in objs if o["kind"] == k]
               for k in ("Service", "ReplicationController", "ReplicaSet", "StatefulSet")}
    got = default_selector(p, by_kind["Service"], by_kind["ReplicationController"],
                           by_kind["ReplicaSet"], by_kind["StatefulSet"])
    assert str(got) == want
