"""The harnesses kroute answers hooks for, one module each (`claude`, `codex`, `gemini`,
`git`, `pipe`) behind one protocol (`registry.Harness`): the events it answers, what each
asks (`event`), how its answer is printed (`printed`), and where its hook settings live
(`settings`)."""
