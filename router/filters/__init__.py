"""Pure scorers below the core: the relevance filter, the symbol reader, the intent classifier."""
