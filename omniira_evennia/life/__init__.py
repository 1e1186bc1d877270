"""Daily life: schedules, promises kept or dropped, the decision tick and following."""
