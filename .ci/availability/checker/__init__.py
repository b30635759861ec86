"""The availability check, in the order its parts build on each other: common (constants,
versions) → symbols → conditions → references → frontend → checking. See ../check."""
