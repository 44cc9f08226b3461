"""The harnesses kroute answers hooks for, one module each (`claude`, `codex`, `gemini`,
`git`, `pipe`) behind one protocol (`registry.Harness`): the events it answers, what each
asks (`events`), how its answer is printed (`printed`), where its hook settings live
(`settings`), and which files an event says the agent opened (`opening`)."""
