"""The shadow log: what every route emitted, its review and its report."""
