"""kubesim."""
