"""kubectl's generators: ``create deployment|namespace|priorityclass|poddisruptionbudget|configmap``
and ``run`` — the objects (``objects``, ``configmap``), how their flags are read (``flags``), and
what they print (``printing``); the verbs themselves are ``kubesim.kubectl.cmd.create`` and ``run``.

Upstream (kubectl v1.36): staging/src/k8s.io/kubectl/pkg/cmd/create/{create.go,create_deployment.go,
create_namespace.go,create_priorityclass.go,create_pdb.go,create_configmap.go}, pkg/cmd/run/run.go, pkg/generate/versioned/run.go
(the ``run-pod/v1`` generator), pkg/generate/generate.go (ParseLabels), pkg/cmd/util/helpers.go
(GetDryRunStrategy, the printers' "created (dry run)" suffix).

kubectl builds *typed* Go objects here, so ``-o json`` keeps Go struct field order (``kind``,
``apiVersion``, ``metadata``, ...; a Container's ``name``, ``image``, ``command``, ``args``, ``ports``,
``env``, ``resources``, ...) with ``omitempty`` fields left out, while ``-o yaml`` goes through
JSON → map and comes out sorted. The builders below construct their dicts in Go struct order, so
``typed_json`` prints them as kubectl does and ``printers.output.to_yaml`` sorts them as kubectl does.

Flags are parsed the way pflag parses them: ``--replicas``/``--port``/``--value`` as Go ``int32``
(``strconv.ParseInt(s, 0, 32)``: ``0x10``, ``010``, ``1_000``), ``--image`` of ``create deployment``
as a CSV string slice, ``run --port`` with ``strconv.Atoi`` and a silent int32 wrap-around, bool
flags accepting ``--flag``, ``--flag=true|false|1|0|t|f|...``. Errors carry kubectl's texts.

Without ``--dry-run`` the generated object is created through the client; ``--dry-run=server``
does the same in a session that is not committed. The object the server returns is printed by kubesim's usual
printers: its ``-o yaml`` is kubectl's, its ``-o json`` has sorted keys where kubectl, decoding into
a typed object, would keep Go order. What kubesim leaves out is listed in ``UNSUPPORTED``.
"""

from __future__ import annotations

# What kubectl's generators offer that kubesim does not (yet): attach/interactive ``run``, ``--expose``
# (no Service kind), ``--overrides``, ``--save-config``, the go-template printers.
UNSUPPORTED = ("run -i/-t/--attach/--rm", "run --expose", "run --overrides", "--save-config",
               "-o go-template|template|kyaml|jsonpath-as-json")
