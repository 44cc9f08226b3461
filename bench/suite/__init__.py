"""The bench's suites, one module each: `size` (the table of every catalog size), `meaning`,
`hooks`, `imports`, `churn`, `cold`, `firstprompt`, `onboarding` and the `spot` timings."""
