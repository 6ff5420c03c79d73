"""kubesim's own ``advance DURATION``: let simulated time pass, as waiting would on a real cluster
(the control plane acts at every moment a component asked to be woken on the way)."""

from __future__ import annotations

from kubesim.errors import UsageError


def add_flags(p):
    p.add_argument("duration", help="e.g. 30s, 5m, 1h30m")


def run(f, args, env) -> int:
    from kubesim.clock import MAX_TIME, Clock, format_time, parse_duration

    try:
        seconds = parse_duration(args.duration)
    except ValueError as e:
        raise UsageError(str(e)) from None
    if seconds < 0:
        raise UsageError("the clock only moves forward: duration must not be negative")
    with f.connect() as client:
        if client.now() + seconds > MAX_TIME:  # refused before anything moves
            raise UsageError(f"{Clock.range_message()}: it is {format_time(client.now())}, "
                             f"{args.duration} later is not")
        client.advance(seconds)
        now = client.now()
    env.stdout.write(f"clock advanced {args.duration} to {format_time(now)}\n")
    return 0
