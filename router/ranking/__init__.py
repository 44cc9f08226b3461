"""Ranking: the words of a task and of entries, the index, BM25F, silence and the explain
record's arithmetic."""
