"""The formats a catalog file comes in: Markdown documents and decision records, front matter
and the YAML tools write, skill rules and the regexes they hold."""
