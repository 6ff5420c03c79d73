"""Shared test and example helpers: a CLI harness and fluent object builders."""
