"""Output formats, as the server's table printers and kubectl's printers make them: the ``get``
tables (columns per kind, one module per API group, as pkg/printers/internalversion), Go's
tabwriter, ``-o yaml|json|name``, ``jsonpath`` and ``custom-columns``, and AGE. Printers never
fetch: they format the objects they are given."""
