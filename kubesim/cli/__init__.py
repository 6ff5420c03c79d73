"""The command line: argparse over one verb table (``verbs.py``), the factory that opens an
in-process session on the state (``session.py``), and the one place errors become exit codes
(``main.py``). Thin on purpose: what a verb does is ``kubesim.kubectl``."""
