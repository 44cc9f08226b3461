"""The catalog: which files it is, reading each in its format, and the entries they give."""
