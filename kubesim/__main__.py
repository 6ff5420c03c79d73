try:
    from kubesim.cli.main import run
except KeyboardInterrupt:  # Ctrl-C while starting up: nothing was done, exit as an interrupted command
    raise SystemExit(130) from None

run()
