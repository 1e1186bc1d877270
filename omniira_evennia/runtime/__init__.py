"""What every capability runs on: the two pools, claims, retry, the game clock, logs, files."""
