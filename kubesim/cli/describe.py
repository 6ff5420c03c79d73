"""kubectl describe: one object per block; a name that matches nothing exactly matches by prefix."""

from __future__ import annotations

from kubesim.cli.session import namespace, session
from kubesim.errors import NotFound


def describe_cmd(args, env) -> int:
    from kubesim.cli.resources import parse_targets
    from kubesim.apiserver import objects
    from kubesim.apiserver.events import events_for
    from kubesim.printers.describe import DescribeContext, describe

    targets = parse_targets(args.args)
    ns = None if args.all_namespaces else namespace(args)
    blocks: list[str] = []
    with session(args, env) as cluster:
        now = cluster.now()
        for info, names in targets:
            objs: list[dict] = []
            if names:
                for n in names:
                    obj = cluster.store.get(info.kind, (ns or "") if info.namespaced else "", n)
                    if obj is not None:
                        objs.append(obj)
                        continue
                    # kubectl describe falls back to every object whose name starts with the argument
                    pool, _ = objects.select(cluster, info, [], ns)
                    matched = [o for o in pool if o["metadata"]["name"].startswith(n)]
                    if not matched:
                        raise NotFound(info.resource, n)
                    objs.extend(matched)
            else:
                objs, _ = objects.select(cluster, info, [], ns, args.selector)
            for obj in objs:
                extra_pods: list[dict] = []
                extra: dict = {}
                obj_ns = obj["metadata"].get("namespace", "")
                if info.kind == "Node":
                    extra_pods = [cluster.store.get(*k) for k in cluster.store.pod_keys_on_node(obj["metadata"]["name"])]
                    extra_pods = [p for p in extra_pods if p and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")]
                    extra_pods.sort(key=lambda p: (p["metadata"].get("namespace", ""), p["metadata"]["name"]))
                elif info.kind in ("ReplicaSet", "DaemonSet"):
                    extra_pods = cluster.store.list("Pod", obj_ns)  # the describer keeps its own
                elif info.kind == "PersistentVolumeClaim":
                    extra_pods = cluster.store.list("Pod", obj_ns)  # "Used By": the describer keeps the users
                elif info.kind == "Deployment":
                    extra["replicasets"] = cluster.store.list("ReplicaSet", obj_ns)
                ctx = DescribeContext(now=now, events=events_for(cluster, obj), pods=extra_pods, extra=extra)
                blocks.append(describe(obj, ctx))
    if not blocks:
        if ns and any(info.namespaced for info, _ in targets):
            env.stderr.write(f"No resources found in {ns} namespace.\n")
        else:
            env.stderr.write("No resources found\n")
        return 0
    # kubectl's describe writes "\n\n" between objects, each of which ends in a newline
    env.stdout.write("\n\n".join(b if b.endswith("\n") else b + "\n" for b in blocks))
    return 0
