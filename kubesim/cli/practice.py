"""``kubesim drill`` and ``kubesim exam``: practice mode's commands (thin: flags, then
``kubesim.practice``). Each task's setup and the checks' reads go through kubesim's own entry
point and client, on a context of the state: the runner below types the commands, and
``_Context`` opens a client on the task's context (``--as`` for authorization checks)."""

from __future__ import annotations

import argparse
import contextlib
import io
import time

from kubesim.errors import UsageError

DRILL_CONTEXT = "drill"


def add_drill_flags(p):
    p.add_argument("action", choices=["list", "start", "check", "hint", "solution", "reset"])
    p.add_argument("id", nargs="?", help="start: the drill to start (kubesim drill list shows them)")
    p.add_argument("--topic", default=None, help="list: only the drills of this CKA domain")
    p.add_argument("--seed", default=None, help="start: the variant (names, numbers, nodes) to prepare")


def add_exam_flags(p):
    p.add_argument("action", choices=["start", "check", "end"])
    p.add_argument("--minutes", type=int, default=120, help="start: the time allowed (default 120)")
    p.add_argument("--seed", default=None, help="start: which tasks and variants (a second attempt: another seed)")
    p.add_argument("--tasks", type=int, default=17, help="start: how many tasks, 15 to 20 (default 17)")


def _runner(f, env):
    """``runner(argv, stdin) -> (code, out, err)``: kubesim's entry point on the same state."""
    from kubesim.cli.main import Environment, main

    state = f.state_dir()

    def run(argv, stdin=""):
        out, err = io.StringIO(), io.StringIO()
        code = main(["--state", state, *argv], Environment(stdin=io.StringIO(stdin), stdout=out, stderr=err,
                                                           vars=dict(env.vars), cwd=env.cwd))
        return code, out.getvalue(), err.getvalue()

    return run


class _Context:
    """What a check reads through: a client on the task's context, or impersonating a user."""

    def __init__(self, f, env, context: str):
        self.f, self.env, self.context = f, env, context
        self._stack = contextlib.ExitStack()
        self._client = None

    @property
    def client(self):
        """A session on the context's cluster, opened on first use (settled, as a ``get``)."""
        if self._client is None:
            self._client = self._stack.enter_context(self._factory().connect())
        return self._client

    def _factory(self, user=None, groups=()):
        from kubesim.cli.session import Factory

        args = argparse.Namespace(state=self.f.state_dir(), context=self.context, verbosity=0,
                                  as_user=user, as_group=list(groups) or None)
        return Factory(args, self.env)

    @contextlib.contextmanager
    def client_as(self, user: str, groups: list[str]):
        self.close()  # one session at a time on a state: the store's lock is not re-entrant
        with self._factory(user, groups).connect(commit=False) as client:
            yield client

    def close(self):
        self._stack.close()
        self._stack, self._client = contextlib.ExitStack(), None


def _seed(value, env) -> int:
    if value is None:
        return int(env.vars.get("KUBESIM_SEED") or time.time_ns() % 100000)
    if not str(value).isdigit():
        raise UsageError(f'invalid argument "{value}" for "--seed" flag: a non-negative integer is expected')
    return int(value)


def _cluster_dir(f, context: str) -> str:
    import os

    return os.path.join(f.state_dir(), "clusters", context)


def _prepare(f, env, task, seed: int, context: str):
    from kubesim.practice import engine

    values = engine.runtime_values(task.variables(seed), context, _cluster_dir(f, context))
    rendered = task.rendered(values)
    engine.prepare(rendered, context, _runner(f, env))
    return values, rendered


def _sim_now(f, env, context: str) -> float:
    ctx = _Context(f, env, context)
    try:
        return ctx.client.now()
    finally:
        ctx.close()


def _header(task) -> str:
    from kubesim.practice.task import TOPIC_TITLES

    return f"{task.title}  [{TOPIC_TITLES[task.topic]}]"


# -- drill ----------------------------------------------------------------------------------

def run_drill(f, args, env) -> int:
    from kubesim.practice import engine
    from kubesim.practice.task import TOPICS, all_tasks, find_task

    out = env.stdout
    if args.action == "list":
        if args.topic is not None and args.topic not in TOPICS:
            raise UsageError(f'unknown topic "{args.topic}": one of {", ".join(TOPICS)}')
        tasks = [t for t in all_tasks() if args.topic in (None, t.topic)]
        width = max((len(t.id) for t in tasks), default=2)
        out.write(f"{'ID':<{width}}   {'TOPIC':<22} TITLE\n")
        for t in tasks:
            out.write(f"{t.id:<{width}}   {t.topic:<22} {t.title}\n")
        return 0
    if args.action == "start":
        if not args.id:
            raise UsageError("drill start needs a drill ID (kubesim drill list shows them)\n"
                             "See 'kubesim drill --help' for usage.")
        task = find_task(args.id)
        seed = _seed(args.seed, env)
        return _start_drill(f, env, task, seed)
    if args.id:
        raise UsageError(f"drill {args.action} takes no ID (it acts on the drill in progress)")
    record = engine.load_record(f.state_dir(), "drill")
    entry = record.entries[0]
    task = find_task(entry.id).rendered(entry.values)
    if args.action == "reset":
        return _start_drill(f, env, find_task(entry.id), entry.seed)
    if args.action == "hint":
        if not task.hints:
            out.write("No hint for this one: read the task again, then kubesim drill solution.\n")
        for i, h in enumerate(task.hints, 1):
            out.write(f"Hint {i}: {h.strip()}\n")
        return 0
    if args.action == "solution":
        out.write(f"# A model answer for {task.id} (on context {entry.context}):\n")
        out.write(task.solution.rstrip("\n") + "\n")
        return 0
    results = _grade(f, env, task, entry.context)
    passed = sum(r.passed for r in results)
    out.write(f"Drill {task.id}: {passed}/{len(results)} checks passed\n")
    _print_results(out, results, "  ")
    sim = _sim_now(f, env, entry.context) - record.sim_start
    out.write(f"Time: {engine.duration(time.time() - record.wall_start)} on the wall clock, "
              f"{engine.duration(sim)} on the simulated clock\n")
    if passed == len(results):
        out.write("All checks passed.\n")
        return 0
    out.write("Not yet: kubesim drill hint gives a hint, kubesim drill solution a model answer.\n")
    return 1


def _start_drill(f, env, task, seed: int) -> int:
    from kubesim.practice import engine

    values, rendered = _prepare(f, env, task, seed, DRILL_CONTEXT)
    code, _o, err = _runner(f, env)(["config", "use-context", DRILL_CONTEXT])
    if code != 0:
        raise UsageError(err.strip())
    record = engine.Record(mode="drill", entries=[engine.Entry(task.id, seed, DRILL_CONTEXT, values)],
                           wall_start=time.time(), sim_start=_sim_now(f, env, DRILL_CONTEXT), seed=seed)
    engine.save_record(f.state_dir(), record)
    out = env.stdout
    out.write(f"Drill {task.id} (seed {seed}): {_header(rendered)}\n\n")
    out.write(f"kubectl config use-context {DRILL_CONTEXT}    (kubesim has switched to it)\n\n")
    out.write(rendered.task.rstrip("\n") + "\n\n")
    out.write("When done: kubesim drill check. Stuck: kubesim drill hint, kubesim drill solution. "
              "Start over: kubesim drill reset.\n")
    return 0


def _grade(f, env, task, context: str):
    from kubesim.practice import engine

    ctx = _Context(f, env, context)
    try:
        return engine.grade(task, ctx)
    finally:
        ctx.close()


def _print_results(out, results, indent: str) -> None:
    for r in results:
        out.write(f"{indent}{'PASS' if r.passed else 'FAIL'}  {r.desc}\n")
        if not r.passed:
            out.write(f"{indent}      {r.explanation}\n")


# -- exam -----------------------------------------------------------------------------------

def run_exam(f, args, env) -> int:
    from kubesim.practice import engine
    from kubesim.practice.task import all_tasks, find_task

    out = env.stdout
    if args.action == "start":
        if not 15 <= args.tasks <= 20:
            raise UsageError("--tasks must be between 15 and 20")
        if args.minutes <= 0:
            raise UsageError("--minutes must be positive")
        seed = _seed(args.seed, env)
        began = time.time()
        plan = engine.exam_plan(all_tasks(), seed, args.tasks)
        entries, shown = [], []
        for i, (task, points) in enumerate(plan, 1):
            context = f"exam-{i}"
            values, rendered = _prepare(f, env, task, seed, context)
            entries.append(engine.Entry(task.id, seed, context, values, points))
            shown.append(rendered)
        record = engine.Record(mode="exam", entries=entries, wall_start=time.time(),
                               sim_start=_sim_now(f, env, entries[0].context), minutes=args.minutes, seed=seed)
        engine.save_record(f.state_dir(), record)
        out.write(f"Mock CKA exam (seed {seed}): {len(entries)} tasks, {args.minutes} minutes, pass mark "
                  f"{engine.EXAM_PASS_MARK}%. Prepared in {time.time() - began:.1f}s.\n"
                  "Each task has its own cluster: switch to its context first.\n")
        for i, (entry, rendered) in enumerate(zip(entries, shown), 1):
            out.write(f"\n{'=' * 78}\nTask {i} ({entry.points:.0f}%)  {_header(rendered)}\n\n")
            out.write(f"kubectl config use-context {entry.context}\n\n")
            out.write(rendered.task.rstrip("\n") + "\n")
        out.write(f"\n{'=' * 78}\nkubesim exam check shows your score so far; kubesim exam end grades and ends.\n")
        return 0
    record = engine.load_record(f.state_dir(), "exam")
    if record.ended and args.action == "check":
        raise UsageError("this exam has ended (kubesim exam start begins another)")
    total = 0.0
    out.write(f"Mock CKA exam (seed {record.seed}): {len(record.entries)} tasks\n")
    for i, entry in enumerate(record.entries, 1):
        task = find_task(entry.id).rendered(entry.values)
        results = _grade(f, env, task, entry.context)
        passed = sum(r.passed for r in results)
        score = entry.points * passed / len(results)
        total += score
        out.write(f"\nTask {i} [{entry.context}] {task.id}: {score:.1f}/{entry.points:.1f} "
                  f"({passed}/{len(results)} checks)\n")
        _print_results(out, results, "  ")
    elapsed = time.time() - record.wall_start
    over = elapsed > record.minutes * 60
    out.write(f"\nScore: {total:.0f}% (pass mark {engine.EXAM_PASS_MARK}%): "
              f"{'PASS' if total >= engine.EXAM_PASS_MARK else 'FAIL'}\n")
    out.write(f"Time: {engine.duration(elapsed)} of {record.minutes}m"
              + (" (over time)" if over else f", {engine.duration(record.minutes * 60 - elapsed)} left") + "\n")
    if args.action == "end":
        record.ended = True
        engine.save_record(f.state_dir(), record)
        out.write("The exam has ended.\n")
    return 0 if total >= engine.EXAM_PASS_MARK else 1
