"""The game-day rollover (paper section 5): forgetting, reflections, diaries."""
