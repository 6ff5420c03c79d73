from kubesim.cli.main import run

run()
