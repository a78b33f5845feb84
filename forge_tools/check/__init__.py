"""`forge-tools check` and `diff`: findings about permission configs, for CI and code review."""
