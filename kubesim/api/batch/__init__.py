"""batch/v1: Job and CronJob (upstream pkg/apis/batch)."""
