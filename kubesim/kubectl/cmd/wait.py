"""kubectl wait: until each object has a condition (``--for=condition=X[=value]``), a JSONPath
value (``--for=jsonpath='{...}'[=value]``), is gone (``--for=delete``) or exists
(``--for=create``), or ``--timeout`` (30s) passes.

Upstream: staging/src/k8s.io/kubectl/pkg/cmd/wait/{wait.go, condition.go, json.go, delete.go,
create.go}: the flags, conditionFuncsFor and its errors, RunWaitContext (``--for=create`` first,
as a poll every half second until the builder finds the objects; then each object in turn, each
condition in the order given, one deadline for all; a line per condition met, ``pod/x condition
met``; the errors of the objects that fail, after the others are done), ``--timeout=0`` (look
once: ``condition not met for pods/x``) and a negative one (a week). The watches run on the
simulated clock (``kubesim.kubectl.waiting``): each write of the object is an event the
condition is checked against, in no wall time. At the deadline the wait fails as kubectl's does
(``timed out waiting for the condition on pods/x``); when nothing in the cluster will change the
answer first, the clock moves to the deadline at once. With a negative ``--timeout`` (a week)
kubesim stops there instead, with an error saying so.
"""

from __future__ import annotations

from kubesim.api.gofmt import go_quote, go_sprint
from kubesim.errors import KubesimError, NotFound, RawError, UsageError

CREATE_POLL = 0.5  # RunWaitContext polls for --for=create every half second

_WAIT_FORMATS = ("go-template,go-template-file,json,jsonpath,jsonpath-as-json,jsonpath-file,kyaml,name,template,"
                 "templatefile,yaml")


def add_flags(p):
    p.add_argument("args", nargs="*", metavar="TYPE[/NAME] [NAME ...]")
    p.add_argument("--for", dest="for_", action="append", default=None, metavar="CONDITION",
                   help="The condition to wait on: [create|delete|condition=condition-name[=condition-value]|"
                        "jsonpath='{JSONPath expression}'=[JSONPath value]]. The default condition-value is true. "
                        "Condition values are compared after Unicode simple case folding. Multiple conditions are "
                        "AND'ed in the order given; --for=create is always waited first.")
    p.add_argument("--timeout", default="30s",
                   help="The length of time to wait before giving up (simulated time). Zero means check once and "
                        "don't wait, negative means wait for a week.")
    p.add_argument("-f", "--filename", action="append", help="identifying the resource.")
    p.add_argument("-R", "--recursive", nargs="?", const="true", default="true", metavar="true|false",
                   help="Process the directory used in -f, --filename recursively (default true).")
    p.add_argument("-l", "--selector", help="Selector (label query) to filter on")
    p.add_argument("--field-selector", help="Selector (field query) to filter on")
    p.add_argument("--all", action="store_true", help="Select all resources in the namespace of the specified "
                                                      "resource types")
    p.add_argument("-A", "--all-namespaces", action="store_true")
    p.add_argument("-o", "--output", default=None, help="json|yaml|name|jsonpath=...")


# -- the conditions (conditionFuncsFor) --------------------------------------------------------

class Condition:
    """One ``--for``: what the object must show. ``check`` is run on each version of the object
    the watch sees; it may raise ``RawError`` (a JSONPath that finds a list)."""

    kind = "condition"

    def check(self, obj: dict) -> bool:
        raise NotImplementedError


class StatusCondition(Condition):
    """ConditionalWait: ``status.conditions[type=name].status`` equals ``value`` (case folded),
    unless the condition (or the status) was observed for an older generation."""

    def __init__(self, name: str, value: str):
        self.name, self.value = name, value

    def check(self, obj: dict) -> bool:
        conditions = (obj.get("status") or {}).get("conditions")
        if not isinstance(conditions, list):
            return False
        for c in conditions:
            if not isinstance(c, dict) or not isinstance(c.get("type"), str) or not _equal_fold(c["type"], self.name):
                continue
            if not isinstance(c.get("status"), str):
                continue
            generation = (obj.get("metadata") or {}).get("generation")
            if isinstance(generation, int):
                observed = c.get("observedGeneration", (obj.get("status") or {}).get("observedGeneration"))
                if isinstance(observed, int) and observed < generation:
                    return False
            return _equal_fold(c["status"], self.value)
        return False


class JSONPathCondition(Condition):
    """JSONPathWait: the expression finds exactly one value, equal to ``value`` as Go's ``%v``
    prints it (any value, when none is given)."""

    def __init__(self, expression, value: str):
        self.expression, self.value = expression, value

    def check(self, obj: dict) -> bool:
        from kubesim.printers.jsonpath import JSONPathError

        try:
            results = self.expression.find_results(obj)
        except JSONPathError as e:
            raise RawError(f"error: {e}") from None
        if not results or not results[0]:
            return False
        if len(results) > 1:
            raise RawError("error: given jsonpath expression matches more than one list")
        if len(results[0]) > 1:
            raise RawError("error: given jsonpath expression matches more than one value")
        if not self.value:
            return True
        found = results[0][0]
        if isinstance(found, (dict, list)):
            raise RawError("error: jsonpath leads to a nested object or list which is not supported")
        return go_sprint(found).strip() == self.value.strip()


class Deleted(Condition):
    kind = "delete"


class Created(Condition):
    kind = "create"


def parse_conditions(values: list[str] | None) -> list[Condition]:
    """conditionFuncsFor, with its errors."""
    out: list[Condition] = []
    for cond in values or []:
        lower = cond.lower()
        if lower == "delete":
            out.append(Deleted())
        elif lower == "create":
            out.append(Created())
        elif cond.startswith("condition="):
            name = cond[len("condition="):]
            value = "true"
            if "=" in name:
                name, value = name.split("=", 1)
            out.append(StatusCondition(name, value))
        elif cond.startswith("jsonpath="):
            out.append(_jsonpath_condition(cond[len("jsonpath="):]))
        else:
            raise UsageError(f"unrecognized condition: {go_quote(cond)}")
    if not out:
        raise UsageError("unrecognized condition: []")
    return out


def _jsonpath_condition(text: str) -> JSONPathCondition:
    """processJSONPathInput and newJSONPathParser."""
    from kubesim.printers import jsonpath
    from kubesim.printers.custom_columns import relaxed

    parts = _split_jsonpath_input(text)
    if len(parts) > 2:
        raise UsageError("jsonpath wait format must be --for=jsonpath='{.status.readyReplicas}'=3 or "
                         "--for=jsonpath='{.status.readyReplicas}'")
    try:
        expression = relaxed(parts[0])
    except ValueError as e:
        raise UsageError(str(e)) from None
    value = ""
    if len(parts) == 2:
        value = parts[1].strip("'\"")
        if not value:
            raise UsageError("jsonpath wait has to have a value after equal sign, like "
                             "--for=jsonpath='{.status.readyReplicas}'=3")
    if not expression:
        raise UsageError("jsonpath expression cannot be empty")
    try:
        parsed = jsonpath.parse(expression, allow_missing_keys=True)
    except jsonpath.JSONPathError as e:
        raise UsageError(str(e)) from None
    return JSONPathCondition(parsed, value)


def _split_jsonpath_input(text: str) -> list[str]:
    """splitJSONPathInput: split on single ``=``; ``==`` stays in the expression."""
    out, cur, i = [], [], 0
    while i < len(text):
        if text[i] == "=":
            if i + 1 < len(text) and text[i + 1] == "=":
                cur.append("==")
                i += 2
                continue
            out.append("".join(cur))
            cur = []
        else:
            cur.append(text[i])
        i += 1
    out.append("".join(cur))
    return out


def _equal_fold(a: str, b: str) -> bool:
    """strings.EqualFold: equal under Unicode simple case folding (one rune for one rune)."""
    if len(a) != len(b):
        return False
    for x, y in zip(a, b):
        if x == y:
            continue
        fx = {c for c in (x, x.lower(), x.upper()) if len(c) == 1}
        fy = {c for c in (y, y.lower(), y.upper()) if len(c) == 1}
        if not fx & fy:
            return False
    return True


# -- the command -------------------------------------------------------------------------------

def run(f, args, env) -> int:
    from kubesim.kubectl.cmd.util import bool_flag_value, duration_flag

    timeout = duration_flag(args.timeout, "--timeout", "wait")
    bool_flag_value(args.recursive, "-R, --recursive", "wait")
    printer = _printer(args.output)
    conditions = parse_conditions(args.for_)
    if timeout < 0:
        timeout = None  # "a week": kubesim's unbounded wait
    fors = [c.kind for c in conditions]
    for_delete = "delete" in fors
    errors: list[KubesimError | str] = []
    with f.connect() as client:
        from kubesim.kubectl import waiting

        waiter = waiting.Waiter(client, timeout)
        if "create" in fors:
            failure = _wait_created(client, f, args, env, waiter)
            if failure is not None:
                errors.append(failure)
        if not errors:
            visited = 0
            for item in _objects(client, f, args, env):
                if isinstance(item, KubesimError):
                    if not (for_delete and isinstance(item, NotFound)):
                        errors.append(item)
                    continue
                visited += 1
                info, obj = item
                for cond in conditions:
                    met, error = _wait_for(client, waiter, timeout, info, obj, cond)
                    if error is not None:
                        errors.append(error)
                        break
                    env.stdout.write(printer(info, met))
            if not visited and not errors and not for_delete:
                errors.append("no matching resources found")
    if errors:
        env.stderr.write(_error_text(errors) + "\n")
        return 1
    return 0


def _printer(output: str | None):
    """PrintFlags("condition met").ToPrinter: the name printer with its operation, or -o."""
    from kubesim.printers.output import to_json, to_yaml

    fmt = output or ""
    name, _, template = fmt.partition("=")
    if fmt in ("", "name"):
        suffix = "" if fmt == "name" else " condition met"
        return lambda info, obj: f"{info.ref}/{obj['metadata']['name']}{suffix}\n"
    if fmt.lower() in ("yaml", "json"):
        count = [0]

        def document(info, obj) -> str:
            count[0] += 1
            if fmt.lower() == "json":
                return to_json(obj)
            return ("---\n" if count[0] > 1 else "") + to_yaml(obj)
        return document
    if name in ("jsonpath", "jsonpath-as-json", "jsonpath-file"):
        from kubesim.printers import jsonpath

        if not template:
            raise UsageError("template format specified but no template given")
        if name == "jsonpath-file":
            with open(template) as fh:
                template = fh.read()
        try:
            expr = jsonpath.parse(template, output_json=name == "jsonpath-as-json")
        except jsonpath.JSONPathError as e:
            raise UsageError(jsonpath.PARSE_ERROR.format(template=template, error=e)) from None

        def path(info, obj) -> str:
            try:
                return expr.execute(obj)
            except jsonpath.JSONPathError as e:
                raise UsageError(str(e)) from None
        return path
    if name in ("go-template", "go-template-file", "template", "templatefile", "kyaml"):
        raise UsageError(f'kubesim does not support the output format "{name}" yet; use json, yaml, name or jsonpath')
    raise UsageError(f'unable to match a printer suitable for the output format "{fmt}", allowed formats are: '
                     f"{_WAIT_FORMATS}")


def _objects(client, f, args, env) -> list:
    """The builder (ContinueOnError, Latest), in the order given: (KindInfo, live object) for each
    object found, the NotFound error of each one named but missing."""
    from kubesim.kubectl.resource import NO_RESOURCES, parse_targets, prepare, select

    out: list = []
    ns = None if args.all_namespaces else f.namespace()
    if args.filename:
        docs = getattr(args, "_docs", None)
        if docs is None:  # read once: the --for=create poll asks again
            from kubesim.codec.load import load
            from kubesim.kubectl.cmd.util import bool_flag_value

            recursive = bool_flag_value(args.recursive, "-R, --recursive", "wait")
            docs = args._docs = load(args.filename, recursive=recursive, stdin=env.stdin)
        for p in prepare(docs, f.namespace_flag, "getting", explicit_namespace=f.explicit_namespace, default_namespace=f.namespace()):
            obj = client.find(p.info, p.namespace, p.name)
            if obj is None:
                out.append(NotFound(p.info.resource, p.name))
            else:
                out.append((p.info, obj))
    if args.args:
        if args.all and args.selector:
            raise UsageError("setting 'all' parameter but found a non empty selector. ")
        selecting = bool(args.selector or args.field_selector or args.all)
        for info, names in parse_targets(args.args, selecting=selecting):
            if names:
                for n in names:
                    obj = client.find(info, ns or "", n)
                    if obj is None:
                        out.append(NotFound(info.resource, n))
                    else:
                        out.append((info, obj))
            elif selecting:
                out.extend((info, o) for o in select(client, info, ns, args.selector, args.field_selector))
            else:
                raise UsageError("resource(s) were provided, but no name was specified")
    elif not args.filename:
        raise UsageError(NO_RESOURCES)
    return out


def _wait_created(client, f, args, env, waiter) -> KubesimError | str | None:
    """RunWaitContext's poll for --for=create: until the builder finds what it names (a single
    NotFound: not yet), every half second (``--timeout=0``: one look); None once found, else
    the error."""
    from kubesim.kubectl import waiting

    failure: list = []

    def found() -> bool:
        items = _objects(client, f, args, env)
        missing = [i for i in items if isinstance(i, KubesimError)]
        if len(missing) == 1:
            return False  # IsNotFound: not yet
        if missing:  # an aggregate is not NotFound: the poll ends with it
            failure.append(_error_text(missing))
            return True
        return bool(items)

    outcome = waiter.until(found, poll=CREATE_POLL)
    if failure:
        return RawError(failure[0])
    if outcome == waiting.DONE:
        return None
    if outcome == waiting.TIMEOUT:
        return "timed out waiting for the condition"
    return "the objects do not exist yet, and " + _gave_up(outcome)


def _gave_up(outcome: str) -> str:
    from kubesim.clock import format_duration
    from kubesim.kubectl import waiting

    return waiting.gave_up(outcome, f"wait up to {format_duration(waiting.WEEK)}")


def _wait_for(client, waiter, timeout, info, obj: dict, cond: Condition) -> tuple[dict, KubesimError | str | None]:
    """One condition function on one object: (the object to print, None) when met, else the
    error (IsCreated, IsDeleted, getObjAndCheckCondition)."""
    from kubesim.kubectl import waiting

    md = obj["metadata"]
    ns, name = md.get("namespace", ""), md["name"]
    where = f"{info.plural}/{name}"
    if cond.kind == "create":
        return obj, None
    current = client.find(info, ns, name)
    if cond.kind == "delete":
        if current is None:
            return obj, None
        if timeout == 0:
            return obj, f"condition not met for {where}"
    else:
        if current is None:
            return obj, NotFound(info.resource, name)
        if timeout == 0:
            try:
                return (current, None) if cond.check(current) else (current, f"condition not met for {where}")
            except RawError as e:
                return current, e
    if waiter.deadline is not None and client.now() >= waiter.deadline - 1e-6:
        return obj, f"timed out waiting for the condition on {where}"
    w = client.watch(info, ns, name)
    pending: list = [] if cond.kind == "delete" else [("ADDED", current)]
    result: list = [current]
    failure: list = []

    def met() -> bool:
        pending.extend((e.type, e.object) for e in w.events())
        while pending:
            kind, o = pending.pop(0)
            if cond.kind == "delete":
                if kind == "DELETED":
                    return True
                continue
            if kind == "DELETED":
                continue  # kubectl keeps waiting (for a re-creation) until its deadline
            try:
                if cond.check(o):
                    result[0] = o
                    return True
            except RawError as e:
                failure.append(e)
                return True
        return False

    try:
        outcome = waiter.until(met)
    finally:
        w.stop()
    if failure:
        return result[0], failure[0]
    if outcome == waiting.DONE:
        return (obj if cond.kind == "delete" else result[0]), None
    if outcome == waiting.TIMEOUT:
        return obj, f"timed out waiting for the condition on {where}"
    return obj, f"{where} does not meet the condition yet, and " + _gave_up(outcome)


def _error_text(errors: list) -> str:
    """CheckErr of the visit's errors: one as kubectl prints a single error, several one a line
    (MultipleErrors: API errors as the server's, others as they are)."""
    def text(e, single: bool) -> str:
        if isinstance(e, str):
            return f"error: {e}" if single else e
        s = str(e).rstrip("\n")
        if not single and isinstance(e, RawError) and s.startswith("error: "):
            return s[len("error: "):]
        return s
    if len(errors) == 1:
        return text(errors[0], True)
    return "\n".join(text(e, False) for e in errors)
